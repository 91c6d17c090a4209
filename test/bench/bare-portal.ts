/**
 * The debtor portal debt page's bare ceiling (mounted by bare-server.ts, its own process): what the page must do and
 * nothing else (issue 38: "the same SQL and rendering done bare"), between the request id and the one log line every
 * request of ours has (bare-api-routes.ts) — no Koa middleware stack, no router, no error page:
 *   1. the session read as the portal's store reads it: the `portal_session` cookie's SHA-256, `GET` of the session,
 *      its JSON parsed, `PEXPIRE` (core/platform/redis-sessions.ts); no session is a 401 here;
 *   2. the link still live, then the debt's row and its page of transactions beside the creditor's name and the
 *      branding from the portal cache (MGET of the generation and the entry: core/branding/portal-cache.ts; a miss
 *      reads the database) — the same statements ours sends (the same texts), on plain `pg` as named statements;
 *   3. the page rendered by preact-render-to-string in one pass (bare-portal-page.tsx: the layout with the branding,
 *      the balance, the actions, the plan's schedule, the payments, the footer), the same HTML as ours
 *      (harness.test.ts compares the two);
 *   4. the pages' five security headers, with the portal's policy (web/page.ts, web/portal/portal-context.tsx).
 *   GET /portal/debt                       the verified visit's page (the session's cookie)
 *   GET /portal/debt?cache=off&org=&debt=&link=
 *     the same database reads and page with Redis failed open: no session read, the branding from the database
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { BareUnkeyedWork, Named } from './bare-api-routes';
import {
  barePortalDebtPage,
  type BareBranding,
  type BareCollector,
  type BarePortalDebtRow,
  type BarePortalTransaction,
} from './bare-portal-page';

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

/** Our portal's stylesheet stand-in and the collector named by every page (core/platform/portal-config.ts's defaults). */
const STYLESHEET = '/portal/assets/site.css';
export const BARE_COLLECTOR: BareCollector = {
  name: 'Debt Recovery Services',
  email: 'help@collector.example',
  phone: '1800 000 000',
  hours: 'Monday to Friday, 9am to 5pm',
};
const SESSION_COOKIE = 'portal_session';
/** web/portal/portal-context.tsx's PORTAL_CSP. */
const PORTAL_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

interface Visit {
  organizationId: string;
  debtId: string;
  linkId: string;
  csrfToken: string;
}

interface BrandingRow {
  primary_color: string | null;
  secondary_color: string | null;
  logo_url: string | null;
  favicon_url: string | null;
  brand_tagline: string | null;
  support_email: string | null;
  support_phone: string | null;
  statement_footer: string | null;
}

async function brandingOf(pool: pg.Pool, named: Named, redis: Redis | null, org: string): Promise<BareBranding> {
  if (redis) {
    const [generation, raw] = await redis.mget(`portal:branding-generation:${org}`, `portal:branding:${org}`);
    const entry = raw ? (JSON.parse(raw) as { generation: string; branding: BareBranding }) : undefined;
    if (entry && entry.generation === (generation ?? '0')) return entry.branding;
  }
  const row = (await pool.query<BrandingRow>(named(BRANDING, [org, 1]))).rows[0];
  return {
    primaryColor: row?.primary_color ?? null,
    secondaryColor: row?.secondary_color ?? null,
    logoUrl: row?.logo_url ?? null,
    faviconUrl: row?.favicon_url ?? null,
    brandTagline: row?.brand_tagline ?? null,
    supportEmail: row?.support_email ?? null,
    supportPhone: row?.support_phone ?? null,
    statementFooter: row?.statement_footer ?? null,
  };
}

/** The session as the portal's store reads it (GET, its JSON parsed, PEXPIRE: core/platform/redis-sessions.ts). */
async function sessionOf(redis: Redis, id: string | undefined): Promise<Visit | null> {
  if (!id) return null;
  // The production host's session key (core/portal/portal-sessions.ts).
  const key = `production:portal:session:${createHash('sha256').update(id).digest('hex')}`;
  const stored = await redis.get(key);
  if (!stored) return null;
  const session = JSON.parse(stored) as Visit;
  await redis.pexpire(key, 15 * 60_000);
  return session;
}

async function debtPage(pool: pg.Pool, named: Named, redis: Redis | null, visit: Visit): Promise<string | null> {
  const { organizationId: org, debtId: debt, linkId: link } = visit;
  const live = await pool.query(named(LINK_LIVE_SQL, [link, org]));
  if (live.rows.length === 0) return null;
  const [debtAndMoney, creditorName, branding] = await Promise.all([
    (async () => {
      const row = (await pool.query<BarePortalDebtRow>(named(PORTAL_DEBT_SQL, [debt, org]))).rows[0];
      const transactions = await pool.query<BarePortalTransaction>(named(PORTAL_TRANSACTIONS_SQL, [org, debt]));
      return row && { debt: row, transactions: transactions.rows };
    })(),
    pool.query<{ name: string }>(named(CREDITOR_NAME_SQL, [org])).then((r) => r.rows[0]?.name ?? ''),
    brandingOf(pool, named, redis, org),
  ]);
  if (!debtAndMoney) return null;
  return barePortalDebtPage({
    stylesheetHref: STYLESHEET,
    collector: BARE_COLLECTOR,
    csrfToken: visit.csrfToken,
    creditorName,
    branding,
    ...debtAndMoney,
  });
}

/** The portal ceiling's page (GET /portal/debt), run by bare-api-routes.ts between the request id and the log line. */
export function portalCeiling(pool: pg.Pool, named: Named, redis: Redis): BareUnkeyedWork {
  return async (ctx) => {
    ctx.set('Content-Security-Policy', PORTAL_CSP);
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    const q = ctx.query as Record<string, string>;
    const visit =
      q.cache === 'off'
        ? { organizationId: q.org!, debtId: q.debt!, linkId: q.link!, csrfToken: q.csrf ?? '' }
        : await sessionOf(redis, ctx.cookies.get(SESSION_COOKIE));
    const html = visit && (await debtPage(pool, named, q.cache === 'off' ? null : redis, visit));
    ctx.status = html ? 200 : 401;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html ?? '';
  };
}
