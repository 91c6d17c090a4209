/**
 * Per-key rate limits (spec §8, DECISIONS.md §5): an hourly and a daily window, each an atomic Redis counter
 * (rate-limiter-flexible's INCR+EXPIRE Lua script). The daily window is only charged when the hourly one admits
 * the request, so a burst rejected by the hour does not eat the day. If Redis does not answer, requests are served
 * (fail open), logged and counted.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthContext } from '../core/auth-context';
import type { Mode } from '../core/config';
import type { Logger } from '../core/logger';
import type { Redis } from '../core/redis';
import type { ApiMetrics } from './metrics';

export const DEFAULT_LIMITS: Record<Mode, { hourly: number; daily: number }> = {
  production: { hourly: 1000, daily: 20000 },
  sandbox: { hourly: 3600, daily: 50000 },
};

const WINDOWS = { hourly: 3600, daily: 86400 } as const;
type Window = keyof typeof WINDOWS;

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
  remaining: number;
  resetAt: number; // unix seconds
  msBeforeNext: number;
}

export function createRateLimiter(options: {
  redis: Redis;
  mode: Mode;
  logger: Logger;
  metrics: ApiMetrics;
}): RateLimiter {
  const { redis, mode, logger, metrics } = options;
  const limiters = new Map<string, RateLimiterRedis>();

  // One limiter per (window, limit): instances with the same prefix share counters, so keys with overridden limits
  // and keys with defaults are counted alike.
  function limiterFor(window: Window, points: number): RateLimiterRedis {
    const id = `${window}:${points}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `rl:${mode}:${window}`,
        points,
        duration: WINDOWS[window],
        rejectIfRedisNotReady: true,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  }

  async function consume(window: Window, points: number, keyId: string): Promise<{ ok: boolean; state: WindowState }> {
    try {
      return { ok: true, state: stateOf(points, await limiterFor(window, points).consume(keyId)) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { ok: false, state: stateOf(points, rejection) };
      throw rejection;
    }
  }

  return {
    async check(auth) {
      const hourlyLimit = auth.hourlyLimit ?? DEFAULT_LIMITS[mode].hourly;
      const dailyLimit = auth.dailyLimit ?? DEFAULT_LIMITS[mode].daily;
      try {
        const hourly = await consume('hourly', hourlyLimit, auth.keyId);
        if (!hourly.ok) return refuse(hourly.state);
        const daily = await consume('daily', dailyLimit, auth.keyId);
        if (!daily.ok) return refuse(daily.state);
        const tightest = daily.state.remaining < hourly.state.remaining ? daily.state : hourly.state;
        return { allowed: true, headers: headersOf(tightest) };
      } catch (err) {
        metrics.rateLimitFailOpen.inc();
        logger.error(
          { err: (err as Error).message, keyId: auth.keyId },
          'rate limit check failed; serving (fail open)',
        );
        return { allowed: true, headers: {} };
      }
    },
  };
}

function stateOf(limit: number, res: RateLimiterRes): WindowState {
  return {
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    msBeforeNext: res.msBeforeNext,
  };
}

function headersOf(state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.resetAt),
  };
}

function refuse(state: WindowState): RateLimitDecision {
  const retryAfterSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return { allowed: false, headers: headersOf(state), retryAfterSeconds };
}
