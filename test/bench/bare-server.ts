/**
 * The bare ceilings, as their own Koa process (started by the bench like the API, so both are measured as processes):
 * the same work as our routes with nothing around it — no validation, no problem documents, no middleware stack —
 * on the plain `pg` driver (its own Pool, parameterised queries, no knex: knex cost the earlier ceilings up to half
 * their speed, and a soft ceiling flatters every ratio).
 *   GET  /                            a trivial Koa route
 *   GET  /organization (Bearer key)   the same work as GET /v1/organization: hash the key, find it in memory (loaded
 *                                     once from the database), the same two-window Lua script through ioredis, the
 *                                     X-RateLimit-* and X-Request-Id headers, one pino line, the organisation's JSON
 *   GET  /<list>/node?org=<id>        the list's keyset SQL (50 + 1 rows), rows serialised in Node
 *   GET  /<list>/pg?org=<id>          the same rows, JSON built by PostgreSQL (json_agg), passed through as text
 *   POST /debts (Bearer key, idempotency-key)  the same work as POST /v1/debts under a key (bare-debts.ts): the key,
 *                                     the rate limit, the claim, debtor upsert, debt, event, delivery and the sealed
 *                                     saved response in one transaction, the answer, one pino line
 *   GET  /console/…                   the console pages' SQL (bare-console.ts)
 * <list> is debts, events or deliveries. Env: PORT, DATABASE_URL.
 */
import { bareKeyChecks } from './bare-key-checks';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Redis } from 'ioredis';
import pg from 'pg';
import { withoutRedaction } from '../../api/http/middleware/request-log';
import { newRequestId } from '../../core/events/request-cause';
import { asyncStdout, createLogger } from '../../core/platform/logger';
import { consoleCeiling } from './bare-console';
import { debtCreationCeiling } from './bare-debts';
import { portalCeiling } from './bare-portal';

const LIMIT = 50;

const DEBT_COLUMNS = `id, debtor_id, external_account_id, client_reference, original_principal, outstanding_principal,
  currency, status, dispute_reason, dispute_outcome, dispute_resolved_at, plan_status, plan_instalment_amount,
  plan_frequency, plan_instalment_count, plan_instalments_paid, to_char(plan_next_due_date, 'YYYY-MM-DD') as
  plan_next_due_date, metadata, created_at, updated_at`;

/** Each list: its page query (org as the one parameter, LIMIT + 1 rows) and the JSON object of one row in SQL. */
const LISTS = {
  debts: {
    sql: `select ${DEBT_COLUMNS} from debts where organization_id = $1 order by created_at desc, id desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'debtorId', debtor_id, 'externalAccountId', external_account_id,
      'clientReference', client_reference, 'originalPrincipal', original_principal::float8,
      'outstandingPrincipal', outstanding_principal::float8, 'currency', currency, 'status', status,
      'disputeReason', dispute_reason, 'disputeOutcome', dispute_outcome, 'disputeResolvedAt', dispute_resolved_at,
      'planStatus', plan_status, 'planInstalmentAmount', plan_instalment_amount,
      'planFrequency', plan_frequency, 'planInstalmentCount', plan_instalment_count,
      'planInstalmentsPaid', plan_instalments_paid, 'planNextDueDate', plan_next_due_date, 'metadata', metadata,
      'createdAt', created_at, 'updatedAt', updated_at)`,
    order: 'created_at desc, id desc',
  },
  events: {
    sql: `select id, type, data, created_at, txid, seq from events where organization_id = $1
      and txid < pg_snapshot_xmin(pg_current_snapshot()) order by txid desc, seq desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'type', type, 'createdAt', created_at, 'data', data)`,
    order: 'txid desc, seq desc',
  },
  deliveries: {
    sql: `select id, event_id, event_type, url, status, attempt_count, last_attempt_at, next_attempt_at, created_at,
      updated_at from webhook_deliveries where organization_id = $1 order by created_at desc, id desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'eventId', event_id, 'eventType', event_type, 'url', url, 'status', status,
      'attemptCount', attempt_count, 'lastAttemptAt', last_attempt_at, 'nextAttemptAt', next_attempt_at,
      'createdAt', created_at, 'updatedAt', updated_at)`,
    order: 'created_at desc, id desc',
  },
} as const;

type ListName = keyof typeof LISTS;

/**
 * A named prepared statement, as ours runs its hot queries (core/platform/prepared.ts): parsed once per connection
 * and planned generically, where an unnamed one is parsed and planned on every call. Without it the ceiling paid
 * planning that ours does not, and read lower than ours.
 */
function named(text: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `bare_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}
const statementNames = new Map<string, string>();

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

async function listInNode(pool: pg.Pool, list: ListName, org: string): Promise<string> {
  const { rows } = await pool.query<Record<string, unknown>>(named(LISTS[list].sql, [org]));
  const page = rows
    .slice(0, LIMIT)
    .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [camel(k), v])));
  return JSON.stringify({ data: page, nextCursor: rows.length > LIMIT ? 'more' : null });
}

async function listInPostgres(pool: pg.Pool, list: ListName, org: string): Promise<string> {
  const { json, sql, order } = LISTS[list];
  const { rows } = await pool.query<{ body: string }>(
    named(
      `select json_build_object('data', coalesce(json_agg(${json} order by ${order}) filter (where n <= ${LIMIT}), '[]'),
       'nextCursor', case when count(*) > ${LIMIT} then 'more' end)::text as body
     from (select page.*, row_number() over () as n from (${sql}) page) numbered`,
      [org],
    ),
  );
  return rows[0]!.body;
}

interface KnownKey {
  keyId: string;
  organizationId: string;
  organizationJson: string;
}

/**
 * The authenticated, rate-limited route's same work: the key hashed and found in memory (ours caches it too; a miss
 * loads it once, as ours does once a second), the same Lua script in Redis by its digest (EVALSHA, one round trip a
 * request: no auto-pipelining), the headers, one log line of the same fields without the redaction pass, as ours writes it.
 */
function organizationCeiling(pool: pg.Pool, redis: Redis) {
  const keys = new Map<string, KnownKey>();
  // Ours writes its access line without the redaction pass (request-log.ts), and loads the script once (EVALSHA).
  const logger = withoutRedaction(createLogger({ level: 'info', name: 'bare', destination: asyncStdout() }));
  async function findKey(secretHash: string): Promise<KnownKey | undefined> {
    const known = keys.get(secretHash);
    if (known) return known;
    const { rows } = await pool.query<{ id: string; organization: unknown }>(
      named(
        `select k.id, json_build_object('id', o.id, 'name', o.name, 'mode', o.mode, 'createdAt', o.created_at) as organization
       from api_keys k join organizations o on o.id = k.organization_id where k.secret_hash = $1`,
        [secretHash],
      ),
    );
    if (!rows[0]) return undefined;
    const organization = rows[0].organization as { id: string };
    const found = {
      keyId: rows[0].id,
      organizationId: organization.id,
      organizationJson: JSON.stringify(organization),
    };
    keys.set(secretHash, found);
    return found;
  }
  const keyChecks = bareKeyChecks(redis, findKey);
  return async (ctx: Koa.Context): Promise<void> => {
    const startedAt = process.hrtime.bigint();
    const requestId = newRequestId();
    ctx.set('X-Request-Id', requestId);
    const key = await keyChecks(ctx);
    if (!key) return;
    ctx.type = 'application/json';
    ctx.body = key.organizationJson;
    // The same line as ours (request-log.ts): the same fields, the latency measured the same way.
    const latencyMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
    logger.info(
      {
        requestId,
        organizationId: key.organizationId,
        method: ctx.method,
        path: ctx.path,
        route: '/v1/organization',
        status: 200,
        latencyMs: Math.round(latencyMs * 100) / 100,
      },
      'request',
    );
  };
}

function main(): void {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const organization = organizationCeiling(pool, redis);
  const debtCreation = debtCreationCeiling(pool, named, redis);
  const app = new Koa();
  app.use(koaBody({ includeUnparsed: true })); // the raw body: POST /debts fingerprints it, as ours does
  app.use(async (ctx) => {
    const [, list, how] = ctx.path.split('/');
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.body = { ok: true };
    } else if (ctx.method === 'GET' && ctx.path === '/organization') {
      await organization(ctx);
    } else if (ctx.method === 'GET' && list && list in LISTS && (how === 'node' || how === 'pg')) {
      const org = String(ctx.query.org);
      ctx.type = 'application/json';
      ctx.body = await (how === 'node' ? listInNode : listInPostgres)(pool, list as ListName, org);
    } else if (ctx.method === 'POST' && ctx.path === '/debts') {
      await debtCreation(ctx);
    } else if (!(await portalCeiling(pool, named, redis, ctx))) {
      await consoleCeiling(pool, named, ctx);
    }
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  process.on('SIGTERM', () =>
    server.close(() => void Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0))),
  );
}

main();
