/**
 * The bare ceilings, as their own Koa process (started by the bench like the API, so both are measured as processes):
 * the same work as our routes with nothing around it — no validation, no problem documents, no middleware stack —
 * written from the libraries alone (`koa`, `pg`, `ioredis`, `pino`, `uuid`, Node's own modules): nothing is imported
 * from `api/`, `core/` or `web/` (test/bench/harness.test.ts checks every bare file's imports), so no cost inside one
 * of our modules can sit on both sides of a ratio. Shared constants (the Lua script, SQL texts) are copies, asserted
 * equal to ours by the same test. Statements are named (parsed and planned once per connection, as ours runs its hot
 * ones): an unnamed statement is planned on every call, which ours does not pay, and the ceiling read lower than ours.
 *   GET  /                            a trivial Koa route
 *   GET  /organization (Bearer key)   GET /v1/organization's work (bare-api-routes.ts, line by line): request id, the
 *                                     key's SHA-256 found in memory, the same two-window Lua script, the three
 *                                     X-RateLimit-* headers and X-Request-Id, one pino line, the organisation's JSON
 *   GET  /<list>/node (Bearer key)    what every /v1 request does (as for the organisation), then the list's keyset
 *                                     SQL (50 + 1 rows) for the key's organisation, rows serialised in Node
 *   GET  /<list>/pg (Bearer key)      the same, the page's JSON built by PostgreSQL (json_agg), passed through as text
 *   GET  /<list>/page-only?org=<id>   the PostgreSQL-built page alone (no key, no rate limit, no log line): the lists'
 *                                     ceiling without the same-work rule, reported for information
 *   POST /debts (Bearer key, idempotency-key)  POST /v1/debts's work under a key (bare-debts.ts, line by line)
 *   GET  /portal/debt (its cookie)    the debtor portal's debt page (bare-portal.ts): the session, the reads and the
 *                                     page rendered, with the request id and the log line
 *   GET  /console/…                   the console pages (bare-console.ts): the Overview's, the Deliveries page's and a
 *                                     delivery's session, SQL and rendering, with the request id and the log line
 *   POST /documents?org=<id>          an upload's raw body streamed into the document store (bare-documents.ts)
 * <list> is debts, events or deliveries. Env: PORT, DATABASE_URL, REDIS_URL, DOCUMENT_DIR (the uploads' store).
 */
import Koa from 'koa';
import { Redis } from 'ioredis';
import pg from 'pg';
import { bareApiRoutes } from './bare-api-routes';
import { consoleCeiling } from './bare-console';
import { debtCreationCeiling } from './bare-debts';
import { rawUploadCeiling } from './bare-documents';
import { portalCeiling } from './bare-portal';

const LIMIT = 50;

const DEBT_COLUMNS = `id, debtor_id, external_account_id, client_reference, original_principal, outstanding_principal,
  currency, status, dispute_reason, dispute_outcome, dispute_resolved_at, plan_status, plan_instalment_amount,
  plan_frequency, plan_instalment_count, plan_instalments_paid, to_char(plan_next_due_date, 'YYYY-MM-DD') as
  plan_next_due_date, metadata, created_at, updated_at`;

/** Each list: our route, its page query (org as the one parameter, LIMIT + 1 rows) and the JSON object of one row in SQL. */
const LISTS = {
  debts: {
    route: '/v1/debts',
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
    route: '/v1/events',
    sql: `select id, type, data, created_at, txid, seq from events where organization_id = $1
      and txid < pg_snapshot_xmin(pg_current_snapshot()) order by txid desc, seq desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'type', type, 'createdAt', created_at, 'data', data)`,
    order: 'txid desc, seq desc',
  },
  deliveries: {
    route: '/v1/webhooks/deliveries',
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

function main(): void {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const { keyed, unkeyed } = bareApiRoutes(pool, named, redis);
  const organization = keyed('/v1/organization', async (ctx, key) => {
    ctx.type = 'application/json';
    ctx.body = key.organizationJson;
  });
  const debtCreation = keyed('/v1/debts', debtCreationCeiling(pool, named));
  const portalPage = unkeyed('/portal/debt', portalCeiling(pool, named, redis));
  const consolePages = consoleCeiling(pool, named, redis, unkeyed);
  const lists = new Map(
    (Object.keys(LISTS) as ListName[]).flatMap((list) =>
      (['node', 'pg'] as const).map((how) => [
        `/${list}/${how}`,
        keyed(LISTS[list].route, async (ctx, key) => {
          ctx.type = 'application/json';
          ctx.body = await (how === 'node' ? listInNode : listInPostgres)(pool, list, key.organizationId);
        }),
      ]),
    ),
  );
  const app = new Koa();
  // A load's end closes its connections, some mid-body: Koa would print each such `aborted` request's stack.
  app.on('error', (err: Error & { code?: string }) => {
    if (err.message !== 'aborted' && err.code !== 'ECONNRESET') console.error(err);
  });
  if (process.env.DOCUMENT_DIR) app.use(rawUploadCeiling(process.env.DOCUMENT_DIR));
  app.use(async (ctx) => {
    const [, list] = ctx.path.split('/');
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.body = { ok: true };
    } else if (ctx.method === 'GET' && ctx.path === '/organization') {
      await organization(ctx);
    } else if (ctx.method === 'GET' && lists.has(ctx.path)) {
      await lists.get(ctx.path)!(ctx);
    } else if (ctx.method === 'GET' && list && list in LISTS && ctx.path.endsWith('/page-only')) {
      // The page alone, no key, no rate limit, no log line: what the list ceilings measured before (information only).
      ctx.type = 'application/json';
      ctx.body = await listInPostgres(pool, list as ListName, String(ctx.query.org));
    } else if (ctx.method === 'POST' && ctx.path === '/debts') {
      await debtCreation(ctx);
    } else if (ctx.method === 'GET' && ctx.path === '/portal/debt') {
      await portalPage(ctx);
    } else {
      await consolePages(ctx);
    }
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  process.on('SIGTERM', () =>
    server.close(() => void Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0))),
  );
}

main();
