/**
 * The per-address limit on anonymous sandbox sign-ups: a fixed window in Redis (`INCR`, expiry set by the first
 * sign-up of the window). Like the per-key limits it fails open (DECISIONS.md §5): if Redis does not answer, the
 * sign-up is served and the failure logged.
 */
import { ApiError } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { Redis } from '../platform/redis';

export const SIGNUP_WINDOW_MS = 3_600_000;

export type SignupLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignupLimiter {
  check(address: string): Promise<SignupLimitDecision>;
}

const CHARGE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

declare module 'ioredis' {
  interface RedisCommander {
    clientApiSignupCharge(key: string, windowMs: number): Promise<[number, number]>;
  }
}

export function createSignupLimiter(deps: { redis: Redis; logger: Logger; limitPerHour: number }): SignupLimiter {
  const { redis, logger, limitPerHour } = deps;
  redis.defineCommand('clientApiSignupCharge', { numberOfKeys: 1, lua: CHARGE });
  return {
    async check(address) {
      let reply: [number, number];
      try {
        reply = await redis.clientApiSignupCharge(`sandbox:signup:${address}`, SIGNUP_WINDOW_MS);
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'sandbox sign-up limit check failed; serving (fail open)');
        return { allowed: true };
      }
      const [count, pttl] = reply;
      if (count <= limitPerHour) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((pttl > 0 ? pttl : SIGNUP_WINDOW_MS) / 1000)) };
    },
  };
}

/**
 * Charges one sign-up to `address` (the client's address as the app resolved it), the API's and the console's sign-up
 * alike, in one window: past the limit, `429 rate_limited` with `Retry-After`.
 */
export async function requireSignupAllowed(limiter: SignupLimiter, address: string): Promise<void> {
  const decision = await limiter.check(address);
  if (decision.allowed) return;
  const retry = decision.retryAfterSeconds;
  throw new ApiError('rate_limited', `Too many sandbox sign-ups from your address; retry in ${retry} seconds.`, {
    headers: { 'Retry-After': String(retry) },
  });
}
