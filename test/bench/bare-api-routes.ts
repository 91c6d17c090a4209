/**
 * What every `/v1` request does around its own work, written from the libraries alone (`pg`, `ioredis`, `pino` with
 * its defaults, `koa`, `node:crypto`): nothing here is imported from `api/`, `core/` or `web/`, so a cost inside one
 * of our modules (our logger, our request id, our hashing) is on our side of the ratio only, never in the ceiling
 * too (test/bench/harness.test.ts checks the imports of every bare file, and that the copies below equal ours).
 *
 * A keyed request, line by line:
 *   1. `process.hrtime.bigint()`: the start, for the latency in the log line;
 *   2. the request id: `req_` and a random UUID's 32 hex digits (the form ours gives), set as `X-Request-Id`;
 *   3. the bearer secret read from `Authorization` (one regular expression);
 *   4. its SHA-256 (hex), looked up in a Map: keys are loaded from PostgreSQL once (one named statement joining the
 *      key and its organisation) and kept, as ours keeps them; the organisation's JSON is written once then;
 *   5. the rate limit: the same two-window Lua script as ours (a copy, `RATE_LIMIT_SCRIPT`) by its digest (EVALSHA
 *      through ioredis's `defineCommand`), one round trip to Redis;
 *   6. `X-RateLimit-Limit`, `-Remaining` and `-Reset` from the script's reply;
 *   7. the route's own work (`BareWork`);
 *   8. one log line through `pino()` with pino's defaults (level info, stdout through its asynchronous SonicBoom): the
 *      same seven fields as ours (requestId, organizationId, method, path, route, status, latencyMs) and `request`.
 * No error handling, no problem documents, no metrics, no scope or mode checks: those are ours' work the ratio weighs.
 */
import { hash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';
import pino from 'pino';

/**
 * A copy of api/http/rate-limit.ts's CHECK_AND_CHARGE, kept here so the ceiling imports nothing of ours
 * (harness.test.ts asserts the two are the same text, so the copy cannot drift).
 */
export const RATE_LIMIT_SCRIPT = `
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

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const LIMITS = { hourly: 1_000_000_000, daily: 1_000_000_000 };

/** The key's hash as ours stores it (`api_keys.secret_hash`: SHA-256, hex; harness.test.ts compares the two). */
export const bareKeyHash = (secret: string): string => hash('sha256', secret, 'hex');

/** A request id of the form ours gives (`req_` and 32 hex digits). */
export const bareRequestId = (): string => `req_${randomUUID().replace(/-/g, '')}`;

declare module 'ioredis' {
  interface RedisCommander {
    bareRateLimit(
      hourlyKey: string,
      dailyKey: string,
      hourlyLimit: number,
      dailyLimit: number,
      hourMs: number,
      dayMs: number,
    ): Promise<[number, number, number, number, number]>;
  }
}

/** A statement by name (bare-server.ts `named`): parsed and planned once per connection, as ours runs its hot ones. */
export type Named = (text: string, values: unknown[]) => pg.QueryConfig;

export interface BareKey {
  keyId: string;
  organizationId: string;
  /** The organisation as GET /v1/organization answers it. */
  organizationJson: string;
}

/** A route's own work, once the key is found and charged. */
export type BareWork = (ctx: Koa.Context, key: BareKey, requestId: string) => Promise<void>;

/** A route's work without a key (a page): what it answers is its own. */
export type BareUnkeyedWork = (ctx: Koa.Context, requestId: string) => Promise<void>;

const KEY_AND_ORGANIZATION = `select k.id, json_build_object('id', o.id, 'name', o.name, 'mode', o.mode,
    'createdAt', o.created_at) as organization
  from api_keys k join organizations o on o.id = k.organization_id where k.secret_hash = $1`;

/**
 * Makes bare routes: `keyed(route, work)` answers 401 without a known key, and otherwise runs `work` between the key
 * checks and the log line; `unkeyed(route, work)` (the portal's page, whose visit is its own work) runs it between the
 * request id and the log line.
 */
export function bareApiRoutes(pool: pg.Pool, named: Named, redis: Redis) {
  const keys = new Map<string, BareKey>();
  const logger = pino(); // pino's defaults: level info, JSON lines to stdout, written asynchronously
  redis.defineCommand('bareRateLimit', { numberOfKeys: 2, lua: RATE_LIMIT_SCRIPT });

  /** A key not seen yet: read once from PostgreSQL, then kept (a known key is found without an await). */
  async function loadKey(secretHash: string): Promise<BareKey | undefined> {
    const { rows } = await pool.query<{ id: string; organization: { id: string } }>(
      named(KEY_AND_ORGANIZATION, [secretHash]),
    );
    if (!rows[0]) return undefined;
    const { organization } = rows[0];
    const found = {
      keyId: rows[0].id,
      organizationId: organization.id,
      organizationJson: JSON.stringify(organization),
    };
    keys.set(secretHash, found);
    return found;
  }

  async function chargeRateLimit(ctx: Koa.Context, key: BareKey): Promise<void> {
    const [, hourly, hourlyPttl] = await redis.bareRateLimit(
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
  }

  /** The request id, `work` (which answers the organisation it served, if any), then the log line. */
  const logged =
    (route: string, work: (ctx: Koa.Context, requestId: string) => Promise<string | undefined>) =>
    async (ctx: Koa.Context): Promise<void> => {
      const startedAt = process.hrtime.bigint();
      const requestId = bareRequestId();
      ctx.set('X-Request-Id', requestId);
      const organizationId = await work(ctx, requestId);
      const latencyMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
      logger.info(
        {
          requestId,
          organizationId,
          method: ctx.method,
          path: ctx.path,
          route,
          status: ctx.status,
          latencyMs: Math.round(latencyMs * 100) / 100,
        },
        'request',
      );
    };

  return {
    keyed: (route: string, work: BareWork) =>
      logged(route, async (ctx, requestId) => {
        const secret = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1];
        const secretHash = secret === undefined ? undefined : bareKeyHash(secret);
        const key = secretHash === undefined ? undefined : (keys.get(secretHash) ?? (await loadKey(secretHash)));
        if (!key) {
          ctx.status = 401;
          return undefined;
        }
        await chargeRateLimit(ctx, key);
        await work(ctx, key, requestId);
        return key.organizationId;
      }),
    unkeyed: (route: string, work: BareUnkeyedWork) =>
      logged(route, async (ctx, requestId) => {
        await work(ctx, requestId);
        return undefined;
      }),
  };
}
