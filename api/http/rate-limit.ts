/**
 * Per-key rate limits (spec §8, DECISIONS.md §5): an hourly and a daily fixed window, checked and charged together
 * by one Lua script, so the check is atomic (exactly the limit is admitted, however many requests race) and costs
 * one Redis round trip. A refused request charges neither window. If Redis does not answer, requests are served
 * (fail open), logged and counted.
 *
 * Why a script and not rate-limiter-flexible: that library charges one window per call, so two windows would take
 * two round trips and a request refused by one window would still be charged to the other.
 */
import type { AuthContext } from '../../core/access/auth-context';
import type { Mode } from '../../core/platform/config';
import type { Logger } from '../../core/platform/logger';
import type { Redis } from '../../core/platform/redis';
import type { ApiMetrics } from './metrics';

export const DEFAULT_LIMITS: Record<Mode, { hourly: number; daily: number }> = {
  production: { hourly: 1000, daily: 20000 },
  sandbox: { hourly: 3600, daily: 50000 },
};

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * KEYS: hourly counter, daily counter. ARGV: hourly limit, daily limit, hour ms, day ms.
 * Returns {admitted (1|0), hourly count, hourly pttl, daily count, daily pttl}; a window starts at its first request.
 */
export const CHECK_AND_CHARGE = `
local hourly = tonumber(redis.call('GET', KEYS[1]) or '0')
local daily = tonumber(redis.call('GET', KEYS[2]) or '0')
local admitted = 0
if hourly < tonumber(ARGV[1]) and daily < tonumber(ARGV[2]) then
  admitted = 1
  hourly = redis.call('INCR', KEYS[1])
  if hourly == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
  daily = redis.call('INCR', KEYS[2])
  if daily == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
return {admitted, hourly, redis.call('PTTL', KEYS[1]), daily, redis.call('PTTL', KEYS[2])}
`;

type ScriptReply = [number, number, number, number, number];

declare module 'ioredis' {
  interface RedisCommander {
    clientApiRateLimit(
      hourlyKey: string,
      dailyKey: string,
      hourlyLimit: number,
      dailyLimit: number,
      hourMs: number,
      dayMs: number,
    ): Promise<ScriptReply>;
  }
}

export interface RateLimitDecision {
  allowed: boolean;
  /** `X-RateLimit-*` for the window closest to running out (or the one that refused); empty when failing open. */
  headers: Record<string, string>;
  retryAfterSeconds?: number;
}

export interface RateLimiter {
  check(auth: AuthContext): Promise<RateLimitDecision>;
}

interface WindowState {
  limit: number;
  count: number;
  msBeforeReset: number;
}

export function createRateLimiter(options: {
  redis: Redis;
  mode: Mode;
  logger: Logger;
  metrics: ApiMetrics;
}): RateLimiter {
  const { redis, mode, logger, metrics } = options;
  // defineCommand loads the script once (EVALSHA), falling back to EVAL after a Redis restart.
  redis.defineCommand('clientApiRateLimit', { numberOfKeys: 2, lua: CHECK_AND_CHARGE });

  return {
    async check(auth) {
      const hourlyLimit = auth.hourlyLimit ?? DEFAULT_LIMITS[mode].hourly;
      const dailyLimit = auth.dailyLimit ?? DEFAULT_LIMITS[mode].daily;
      let reply: ScriptReply;
      try {
        reply = await redis.clientApiRateLimit(
          `rl:${mode}:hourly:${auth.keyId}`,
          `rl:${mode}:daily:${auth.keyId}`,
          hourlyLimit,
          dailyLimit,
          HOUR_MS,
          DAY_MS,
        );
      } catch (err) {
        metrics.rateLimitFailOpen.inc();
        logger.error(
          { err: (err as Error).message, keyId: auth.keyId },
          'rate limit check failed; serving (fail open)',
        );
        return { allowed: true, headers: {} };
      }
      const [admitted, hourlyCount, hourlyPttl, dailyCount, dailyPttl] = reply;
      const hourly = windowState(hourlyLimit, hourlyCount, hourlyPttl, HOUR_MS);
      const daily = windowState(dailyLimit, dailyCount, dailyPttl, DAY_MS);
      if (admitted === 1) {
        const tightest = remaining(daily) < remaining(hourly) ? daily : hourly;
        return { allowed: true, headers: headersOf(tightest) };
      }
      const refusing = hourly.count >= hourly.limit ? hourly : daily;
      return {
        allowed: false,
        headers: headersOf(refusing),
        retryAfterSeconds: Math.max(1, Math.ceil(refusing.msBeforeReset / 1000)),
      };
    },
  };
}

/** A missing key (PTTL -2) is a window not yet started: it would reset a full window from now. */
function windowState(limit: number, count: number, pttl: number, windowMs: number): WindowState {
  return { limit, count, msBeforeReset: pttl > 0 ? pttl : windowMs };
}

function remaining(state: WindowState): number {
  return Math.max(0, state.limit - state.count);
}

function headersOf(state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(remaining(state)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + state.msBeforeReset) / 1000)),
  };
}
