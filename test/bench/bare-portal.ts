/**
 * The debtor portal debt page's bare ceiling (mounted by bare-server.ts, its own process): the page's reads, the same
 * statements ours sends (captured from knex), on the plain `pg` driver as named statements, and the rows written out
 * as JSON — no Koa middleware stack, no page rendered. A soft ceiling flatters every ratio, so nothing else is done.
 *   GET /portal/debt?session=<id>&org=<id>&debt=<id>&link=<id>
 *     the session read as the portal's store reads it (GET, then PEXPIRE: core/platform/redis-sessions.ts), the link
 *     still live, then the debt's row and its page of transactions beside the organisation and the branding from the
 *     portal cache (MGET of the generation and the entry: core/branding/portal-cache.ts; a miss reads the database)
 *   … &cache=off
 *     the same database reads with Redis failed open: no session read, the branding from the database
 * The visit's ids come in the query: the session's JSON carries them too, but parsing it is the same cost either way.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';

type Named = (text: string, values: unknown[]) => pg.QueryConfig;

const TRANSACTIONS_PAGE = 50;

/** Ours' statements, as knex writes them (their text and parameters). */
const LINK_LIVE = `select "id" from "portal_links" where "id" = $1 and "organization_id" = $2 and "revoked_at" is null limit $3`;
const DEBT = `select "debts"."id", "debts"."organization_id", "debts"."debtor_id", "debts"."external_account_id",
  "debts"."client_reference", "debts"."original_principal", "debts"."outstanding_principal", "debts"."currency",
  "debts"."status", "debts"."dispute_reason", "debts"."dispute_outcome", "debts"."dispute_resolved_at",
  "debts"."plan_status", "debts"."plan_instalment_amount", "debts"."plan_frequency", "debts"."plan_instalment_count",
  "debts"."plan_instalments_paid", to_char(debts.plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date,
  "debts"."metadata", "debts"."created_at", "debts"."updated_at", "debts"."lifecycle_version", "debts"."plan_schedule"
  from "debts" where "debts"."id" = $1 limit $2`;
const TRANSACTIONS = `select "id", "debt_id", "direction", "status", "type", "amount", "currency", "processor_reference",
  "created_at" from "transactions" where "organization_id" = $1 and "debt_id" = $2
  order by "transactions"."created_at" desc, "transactions"."id" desc limit $3`;
const ORGANIZATION = `select "id", "name", "mode", "created_at" from "organizations" where "id" = $1 limit $2`;
const BRANDING = `select * from "branding" where "organization_id" = $1 limit $2`;

interface Visit {
  session: string;
  org: string;
  debt: string;
  link: string;
}

async function brandingOf(pool: pg.Pool, named: Named, redis: Redis | null, org: string): Promise<unknown> {
  if (redis) {
    const [generation, raw] = await redis.mget(`portal:branding-generation:${org}`, `portal:branding:${org}`);
    const entry = raw ? (JSON.parse(raw) as { generation: string; branding: unknown }) : undefined;
    if (entry && entry.generation === (generation ?? '0')) return entry.branding;
  }
  return (await pool.query(named(BRANDING, [org, 1]))).rows[0];
}

async function debtPage(pool: pg.Pool, named: Named, redis: Redis | null, visit: Visit): Promise<string | null> {
  if (redis) {
    const key = `portal:session:${createHash('sha256').update(visit.session).digest('hex')}`;
    const stored = await redis.get(key);
    if (!stored) return null;
    JSON.parse(stored);
    await redis.pexpire(key, 15 * 60_000);
  }
  const live = await pool.query(named(LINK_LIVE, [visit.link, visit.org, 1]));
  if (live.rows.length === 0) return null;
  const [debtAndMoney, organization, branding] = await Promise.all([
    (async () => {
      const debt = (await pool.query(named(DEBT, [visit.debt, 1]))).rows[0] as unknown;
      const transactions = await pool.query(named(TRANSACTIONS, [visit.org, visit.debt, TRANSACTIONS_PAGE + 1]));
      return { debt, transactions: transactions.rows.slice(0, TRANSACTIONS_PAGE) };
    })(),
    pool.query(named(ORGANIZATION, [visit.org, 1])).then((r) => r.rows[0] as unknown),
    brandingOf(pool, named, redis, visit.org),
  ]);
  return JSON.stringify({ ...debtAndMoney, organization, branding });
}

/** Answers the portal ceiling's route; false for any other path. */
export async function portalCeiling(pool: pg.Pool, named: Named, redis: Redis, ctx: Koa.Context): Promise<boolean> {
  if (ctx.method !== 'GET' || ctx.path !== '/portal/debt') return false;
  const q = ctx.query as Record<string, string>;
  const visit = { session: String(q.session), org: String(q.org), debt: String(q.debt), link: String(q.link) };
  const body = await debtPage(pool, named, q.cache === 'off' ? null : redis, visit);
  ctx.type = 'application/json';
  ctx.status = body === null ? 401 : 200;
  ctx.body = body ?? '{}';
  return true;
}
