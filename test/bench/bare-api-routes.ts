/**
 * What every `/v1` request does around its own work, as the bare ceilings do it by hand (bare-server.ts,
 * bare-debts.ts): the request id and its header, the bearer key hashed and found (in memory, loaded once from the
 * database: ours caches it too), the rate limit's own Lua script by its digest (EVALSHA, one round trip, as ours) and
 * its `X-RateLimit-*` headers, and one pino line of the same fields as ours writes (request-log.ts, without the
 * redaction pass, as ours writes it). The same work as ours, with nothing around it.
 */
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';
import { CHECK_AND_CHARGE, DAY_MS, HOUR_MS } from '../../api/http/rate-limit';
import { withoutRedaction } from '../../api/http/middleware/request-log';
import { hashKeySecret } from '../../core/access/api-keys';
import { newRequestId } from '../../core/events/request-cause';
import { asyncStdout, createLogger } from '../../core/platform/logger';

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

const LIMITS = { hourly: 1_000_000_000, daily: 1_000_000_000 };

/** A route's work without a key (a page): what it answers is its own. */
export type BareUnkeyedWork = (ctx: Koa.Context, requestId: string) => Promise<void>;

/**
 * Makes bare routes: `keyed(route, work)` answers 401 without a known key, and otherwise runs `work` between the key
 * checks and the log line; `unkeyed(route, work)` (the portal's page, whose visit is its own work) runs it between the
 * request id and the log line.
 */
export function bareApiRoutes(pool: pg.Pool, named: Named, redis: Redis) {
  const keys = new Map<string, BareKey>();
  const logger = withoutRedaction(createLogger({ level: 'info', name: 'bare', destination: asyncStdout() }));
  redis.defineCommand('clientApiRateLimit', { numberOfKeys: 2, lua: CHECK_AND_CHARGE });

  async function findKey(secretHash: string): Promise<BareKey | undefined> {
    const known = keys.get(secretHash);
    if (known) return known;
    const { rows } = await pool.query<{ id: string; organization: { id: string } }>(
      named(
        `select k.id, json_build_object('id', o.id, 'name', o.name, 'mode', o.mode, 'createdAt', o.created_at) as organization
       from api_keys k join organizations o on o.id = k.organization_id where k.secret_hash = $1`,
        [secretHash],
      ),
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
  }

  /** The request id, `work` (which answers the organisation it served, if any), then the log line. */
  const logged =
    (route: string, work: (ctx: Koa.Context, requestId: string) => Promise<string | undefined>) =>
    async (ctx: Koa.Context): Promise<void> => {
      const startedAt = process.hrtime.bigint();
      const requestId = newRequestId();
      ctx.set('X-Request-Id', requestId);
      const organizationId = await work(ctx, requestId);
      // The same line as ours (request-log.ts): the same fields, the latency measured the same way.
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
        const key = secret === undefined ? undefined : await findKey(hashKeySecret(secret));
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
