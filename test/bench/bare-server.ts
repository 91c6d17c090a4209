/**
 * The bare ceilings, as their own Koa process (started by the bench like the API, so both are measured as processes):
 * the same work as our routes with nothing around it — no key, no rate limit, no validation, no problem documents.
 *   GET  /                            a trivial Koa route
 *   GET  /<list>/node?org=<id>        the list's keyset SQL (50 + 1 rows), rows serialised in Node
 *   GET  /<list>/pg?org=<id>          the same rows, JSON built by PostgreSQL (json_agg), passed through as text
 *   POST /debts (x-org, idempotency-key)  debtor upsert, debt, its event and the idempotency record in one transaction
 * <list> is debts, events or deliveries. Env: PORT, DATABASE_URL.
 */
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createDb, type Db } from '../../core/platform/db';
import { newEventId, newId } from '../../core/platform/ids';

const LIMIT = 50;

const DEBT_COLUMNS = `id, debtor_id, external_account_id, client_reference, original_principal, outstanding_principal,
  currency, status, dispute_reason, plan_status, plan_instalment_amount, plan_frequency, plan_instalment_count,
  plan_instalments_paid, to_char(plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date, created_at, updated_at`;

/** Each list: its page query (org as the one parameter, LIMIT + 1 rows) and the JSON object of one row in SQL. */
const LISTS = {
  debts: {
    sql: `select ${DEBT_COLUMNS} from debts where organization_id = ? order by created_at desc, id desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'debtorId', debtor_id, 'externalAccountId', external_account_id,
      'clientReference', client_reference, 'originalPrincipal', original_principal::float8,
      'outstandingPrincipal', outstanding_principal::float8, 'currency', currency, 'status', status,
      'disputeReason', dispute_reason, 'planStatus', plan_status, 'planInstalmentAmount', plan_instalment_amount,
      'planFrequency', plan_frequency, 'planInstalmentCount', plan_instalment_count,
      'planInstalmentsPaid', plan_instalments_paid, 'planNextDueDate', plan_next_due_date,
      'createdAt', created_at, 'updatedAt', updated_at)`,
    order: 'created_at desc, id desc',
  },
  events: {
    sql: `select id, type, data, created_at, txid, seq from events where organization_id = ?
      and txid < pg_snapshot_xmin(pg_current_snapshot()) order by txid desc, seq desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'type', type, 'createdAt', created_at, 'data', data)`,
    order: 'txid desc, seq desc',
  },
  deliveries: {
    sql: `select id, event_id, event_type, url, status, attempt_count, last_attempt_at, next_attempt_at, created_at,
      updated_at from webhook_deliveries where organization_id = ? order by created_at desc, id desc limit ${LIMIT + 1}`,
    json: `json_build_object('id', id, 'eventId', event_id, 'eventType', event_type, 'url', url, 'status', status,
      'attemptCount', attempt_count, 'lastAttemptAt', last_attempt_at, 'nextAttemptAt', next_attempt_at,
      'createdAt', created_at, 'updatedAt', updated_at)`,
    order: 'created_at desc, id desc',
  },
} as const;

type ListName = keyof typeof LISTS;

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

async function listInNode(db: Db, list: ListName, org: string): Promise<string> {
  const { rows } = await db.raw<{ rows: Record<string, unknown>[] }>(LISTS[list].sql, [org]);
  const page = rows
    .slice(0, LIMIT)
    .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [camel(k), v])));
  return JSON.stringify({ data: page, nextCursor: rows.length > LIMIT ? 'more' : null });
}

async function listInPostgres(db: Db, list: ListName, org: string): Promise<string> {
  const { json, sql, order } = LISTS[list];
  const { rows } = await db.raw<{ rows: { body: string }[] }>(
    `select json_build_object('data', coalesce(json_agg(${json} order by ${order}) filter (where n <= ${LIMIT}), '[]'),
       'nextCursor', case when count(*) > ${LIMIT} then 'more' end)::text as body
     from (select page.*, row_number() over () as n from (${sql}) page) numbered`,
    [org],
  );
  return rows[0]!.body;
}

/**
 * Ids are made as ours are (UUID v7, time-ordered): with random v4 ids every insert landed on a random page of the
 * events and debts primary-key indexes, read from disk once the bench database held the list tenants' million rows,
 * and the ceiling measured index reads, not the inserts (a third of ours at times).
 */
async function createDebt(db: Db, org: string, key: string, body: Record<string, string>): Promise<string> {
  return db.transaction(async (trx) => {
    const debtorId = newId();
    const {
      rows: [debtor],
    } = await trx.raw<{ rows: { id: string }[] }>(
      `insert into debtors (id, organization_id, reference_id, first_name, last_name, email) values (?, ?, ?, ?, ?, ?)
       on conflict (organization_id, reference_id) do update set updated_at = now() returning id`,
      [
        debtorId,
        org,
        body.debtorReferenceId ?? null,
        body.debtorFirstName ?? null,
        body.debtorLastName ?? null,
        body.debtorEmail ?? null,
      ],
    );
    const debt = { id: newId(), externalAccountId: body.externalAccountId, principal: body.originalPrincipal };
    await trx.raw(
      `insert into debts (id, organization_id, debtor_id, external_account_id, original_principal,
         outstanding_principal, currency, status) values (?, ?, ?, ?, ?, ?, ?, 'Active')`,
      [
        debt.id,
        org,
        debtor!.id,
        body.externalAccountId ?? null,
        body.originalPrincipal ?? null,
        body.originalPrincipal ?? null,
        body.currency ?? null,
      ],
    );
    const response = JSON.stringify(debt);
    await trx.raw(`insert into events (id, organization_id, type, data) values (?, ?, 'debt.created', ?::json)`, [
      newEventId(),
      org,
      JSON.stringify({ debt }),
    ]);
    await trx.raw(
      `insert into idempotency_keys (organization_id, key, fingerprint, response_status, response_headers,
         response_body, request_id, expires_at) values (?, ?, 'bare', 201, '{}', ?, ?, now() + interval '24 hours')`,
      [org, key, response, newId()],
    );
    return response;
  });
}

function main(): void {
  const db = createDb(process.env.DATABASE_URL!);
  const app = new Koa();
  app.use(koaBody());
  app.use(async (ctx) => {
    const [, list, how] = ctx.path.split('/');
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.body = { ok: true };
    } else if (ctx.method === 'GET' && list && list in LISTS && (how === 'node' || how === 'pg')) {
      const org = String(ctx.query.org);
      ctx.type = 'application/json';
      ctx.body = await (how === 'node' ? listInNode : listInPostgres)(db, list as ListName, org);
    } else if (ctx.method === 'POST' && ctx.path === '/debts') {
      const body = ctx.request.body as Record<string, string>;
      ctx.type = 'application/json';
      ctx.body = await createDebt(db, String(ctx.get('x-org')), ctx.get('idempotency-key'), body);
      ctx.status = 201;
    }
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  process.on('SIGTERM', () => server.close(() => void db.destroy().then(() => process.exit(0))));
}

main();
