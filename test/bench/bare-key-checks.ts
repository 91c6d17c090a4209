/**
 * The key checks of a `/v1` request as the bare ceilings do them by hand (bare-server.ts, bare-debts.ts): the bearer
 * key hashed and found (`find`: in memory, loaded once), the rate limit's own Lua script by its digest (EVALSHA, one
 * round trip, as ours) and its `X-RateLimit-*` headers. The same work as ours, with nothing around it.
 */
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import { CHECK_AND_CHARGE, DAY_MS, HOUR_MS } from '../../api/http/rate-limit';
import { hashKeySecret } from '../../core/access/api-keys';

const LIMITS = { hourly: 1_000_000_000, daily: 1_000_000_000 };

/** The found key, its rate limit charged and its headers set; undefined (401 set) without a known key. */
export function bareKeyChecks<Key extends { keyId: string }>(
  redis: Redis,
  find: (secretHash: string) => Promise<Key | undefined>,
): (ctx: Koa.Context) => Promise<Key | undefined> {
  redis.defineCommand('clientApiRateLimit', { numberOfKeys: 2, lua: CHECK_AND_CHARGE });
  return async (ctx) => {
    const secret = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const key = secret === undefined ? undefined : await find(hashKeySecret(secret));
    if (!key) {
      ctx.status = 401;
      return undefined;
    }
    const [, hourly, hourlyPttl] = await redis.clientApiRateLimit(
      `rl:bare:hourly:${key.keyId}`,
      `rl:bare:daily:${key.keyId}`,
      LIMITS.hourly,
      LIMITS.daily,
      HOUR_MS,
      DAY_MS,
    );
    ctx.set('X-RateLimit-Limit', String(LIMITS.hourly));
    ctx.set('X-RateLimit-Remaining', String(LIMITS.hourly - hourly));
    ctx.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + hourlyPttl) / 1000)));
    return key;
  };
}
