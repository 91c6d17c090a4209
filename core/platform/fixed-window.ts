/**
 * Fixed-window counters in Redis for the console's limits (sign-in links, invitations, sign-up mails): one script
 * increments the counter and starts its window with the first hit, so a crash between the two can never leave a
 * counter without an expiry (a lockout for good), and racing hits are each counted once.
 *
 * Every key the console and the portal count under starts with the host's mode (`limitKey`): the production and the
 * sandbox host share one Redis, and a count on one must never refuse anyone on the other.
 */
import type { Mode } from './mode';
import type { Redis } from './redis';

/** INCR, PEXPIRE on the window's first hit; returns {count, ms left in the window}. */
const CHARGE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

export interface WindowLimit {
  limit: number;
  windowMs: number;
}

export interface WindowCharge {
  /** The hit was within the limit (the count after it is at most the limit). */
  allowed: boolean;
  /** Until the window ends: what a `Retry-After` says. */
  retryAfterSeconds: number;
}

/** `<mode>:<parts…>`: the one spelling of a mode's key. */
export function limitKey(mode: Mode, ...parts: string[]): string {
  return [mode, ...parts].join(':');
}

/** Counts one hit against `key`'s window; past `limit`, the hit is refused (and still counted). */
export async function chargeWindow(redis: Redis, key: string, window: WindowLimit): Promise<WindowCharge> {
  const [count, pttl] = (await redis.eval(CHARGE, 1, key, window.windowMs)) as [number, number];
  const msLeft = pttl > 0 ? pttl : window.windowMs;
  return { allowed: count <= window.limit, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}
