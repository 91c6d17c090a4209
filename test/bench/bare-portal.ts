/**
 * The debtor portal debt page's bare ceiling (mounted by bare-server.ts, its own process): the page's reads, the same
 * statements ours sends (the same texts), on the plain `pg` driver as named statements, and the rows written out
 * as JSON, between the request id and the one log line every request of ours has (bare-api-routes.ts) — no Koa
 * middleware stack, no page rendered. A soft ceiling flatters every ratio, so nothing else is done.
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
import type pg from 'pg';
import type { BareUnkeyedWork, Named } from './bare-api-routes';

/**
 * Ours' statements, copied by the same texts (core/portal/debt-reads.ts, core/portal/portal-sessions.ts: the ceiling
 * imports nothing of ours, and harness.test.ts asserts the copies equal), and the branding's on a cache miss as knex
 * writes it (core/branding/branding.ts).
 */
export const BARE_PORTAL_DEBT_SQL = `select status, currency, trim_scale(original_principal)::text as original_principal,
  trim_scale(outstanding_principal)::text as outstanding_principal, external_account_id,
  dispute_reason, plan_status, plan_frequency, plan_instalment_amount is not null as plan_has_amount,
  plan_instalment_count, plan_instalments_paid,
  to_char(plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date, plan_schedule
  from debts where id = $1 and organization_id = $2`;
export const BARE_PORTAL_TRANSACTIONS_SQL = `select type, status, amount, currency,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day
  from transactions where organization_id = $1 and debt_id = $2
  order by created_at desc, id desc limit 50`;
export const BARE_CREDITOR_NAME_SQL = `select name from organizations where id = $1`;
export const BARE_LINK_LIVE_SQL =
  'select 1 from portal_links where id = $1 and organization_id = $2 and revoked_at is null';
const [PORTAL_DEBT_SQL, PORTAL_TRANSACTIONS_SQL, CREDITOR_NAME_SQL, LINK_LIVE_SQL] = [
  BARE_PORTAL_DEBT_SQL,
  BARE_PORTAL_TRANSACTIONS_SQL,
  BARE_CREDITOR_NAME_SQL,
  BARE_LINK_LIVE_SQL,
];

const BRANDING = `select "primary_color", "secondary_color", "logo_url", "favicon_url", "brand_tagline", "support_email",
  "support_phone", "statement_footer", "updated_at" from "branding" where "organization_id" = $1 limit $2`;

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
    // The production host's session key (core/portal/portal-sessions.ts).
    const key = `production:portal:session:${createHash('sha256').update(visit.session).digest('hex')}`;
    const stored = await redis.get(key);
    if (!stored) return null;
    JSON.parse(stored);
    await redis.pexpire(key, 15 * 60_000);
  }
  const live = await pool.query(named(LINK_LIVE_SQL, [visit.link, visit.org]));
  if (live.rows.length === 0) return null;
  const [debtAndMoney, organization, branding] = await Promise.all([
    (async () => {
      const debt = (await pool.query(named(PORTAL_DEBT_SQL, [visit.debt, visit.org]))).rows[0] as unknown;
      const transactions = await pool.query(named(PORTAL_TRANSACTIONS_SQL, [visit.org, visit.debt]));
      return { debt, transactions: transactions.rows };
    })(),
    pool.query(named(CREDITOR_NAME_SQL, [visit.org])).then((r) => r.rows[0] as unknown),
    brandingOf(pool, named, redis, visit.org),
  ]);
  return JSON.stringify({ ...debtAndMoney, organization, branding });
}

/** The portal ceiling's page (GET /portal/debt), run by bare-api-routes.ts between the request id and the log line. */
export function portalCeiling(pool: pg.Pool, named: Named, redis: Redis): BareUnkeyedWork {
  return async (ctx) => {
    const q = ctx.query as Record<string, string>;
    const visit = { session: String(q.session), org: String(q.org), debt: String(q.debt), link: String(q.link) };
    const body = await debtPage(pool, named, q.cache === 'off' ? null : redis, visit);
    ctx.type = 'application/json';
    ctx.status = body === null ? 401 : 200;
    ctx.body = body ?? '{}';
  };
}
