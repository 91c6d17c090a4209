/**
 * The console pages' bare ceilings (mounted by bare-server.ts, its own process), written from the libraries alone.
 * The Overview, the Deliveries page and a delivery's page do what the page must do and nothing else (issue 38: "the
 * same SQL and rendering done bare"), between the request id and the one log line every request of ours has
 * (bare-api-routes.ts):
 *   1. the session read as the console's store reads it: the cookie's SHA-256, `GET` of the session, its JSON parsed,
 *      `PEXPIRE` (core/platform/redis-sessions.ts); no cookie or no session is a 401 here (ours redirects);
 *   2. the organisation's name for the header, read once and kept (ours keeps the membership for 5 s);
 *   3. the page's SQL, the same statement ours sends, on the plain `pg` driver as a named statement;
 *   4. the page's JSON parsed, and the page rendered by preact-render-to-string from components of its own
 *      (bare-console-pages.tsx, bare-console-overview.tsx), the same HTML as ours (harness.test.ts compares them);
 *   5. the pages' five security headers (web/page.ts).
 * No middleware stack, no role check, no flash, no error page. The JSON expressions' helpers, the Overview's and a
 * delivery's statements are copies of ours (core/platform/json-page.ts, core/rollups/overview-rollups.ts,
 * core/staff/console-deliveries.ts), which harness.test.ts asserts equal.
 *   GET /console/overview             the Overview: its one statement over the rollups (issue 40), its figures and
 *                                     charts rendered
 *   GET /console/deliveries           the Deliveries page: the keyset page of 50 (JSON built by PostgreSQL), rendered
 *   GET /console/delivery?id=<uuid>   a delivery's page: the delivery, its attempts and its event in one statement
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type pg from 'pg';
import type { BareUnkeyedWork, Named } from './bare-api-routes';
import {
  bareDeliveriesPage,
  bareDeliveryPage,
  type BareDelivery,
  type BareDeliveryDetail,
  type BareUser,
} from './bare-console-pages';
import { bareOverviewPage, type BareOverviewRow } from './bare-console-overview';

/** Copies of core/platform/json-page.ts's JSON text expressions: a value, a time as `toISOString` writes it, an object. */
export const bareJsonValue = (sql: string): string => `coalesce(to_json(${sql})::text, 'null')`;
export const bareJsonTime = (sql: string): string =>
  `coalesce('"' || to_char(${sql} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
export function bareJsonObject(fields: [string, string][]): string {
  const parts = fields.map(([key, value], i) => `'${i === 0 ? '{' : ','}${JSON.stringify(key)}:' || ${value}`);
  return `(${parts.join(' || ')} || '}')`;
}
const jsonObject = bareJsonObject;
const jsonValue = bareJsonValue;
const jsonTime = bareJsonTime;

const PAGE = 50;

/** The delivery as the Deliveries page lists it (core/webhooks/deliveries.ts writes the same expression). */
const DELIVERY_FIELDS: [string, string][] = [
  ['id', jsonValue('webhook_deliveries.id')],
  ['eventId', jsonValue('webhook_deliveries.event_id')],
  ['eventType', jsonValue('webhook_deliveries.event_type')],
  ['url', jsonValue('webhook_deliveries.url')],
  ['status', jsonValue('webhook_deliveries.status')],
  ['attemptCount', jsonValue('webhook_deliveries.attempt_count')],
  ['lastAttemptAt', jsonTime('webhook_deliveries.last_attempt_at')],
  ['nextAttemptAt', jsonTime('webhook_deliveries.next_attempt_at')],
  ['requestId', jsonValue('webhook_deliveries.request_id')],
  ['createdAt', jsonTime('webhook_deliveries.created_at')],
  ['updatedAt', jsonTime('webhook_deliveries.updated_at')],
];
const DELIVERY_ITEM = jsonObject(DELIVERY_FIELDS);

const ATTEMPT_ITEM = jsonObject([
  ['number', jsonValue('webhook_delivery_attempts.number')],
  ['startedAt', jsonTime('webhook_delivery_attempts.started_at')],
  ['url', jsonValue('webhook_delivery_attempts.url')],
  ['succeeded', jsonValue('webhook_delivery_attempts.succeeded')],
  ['httpStatus', jsonValue('webhook_delivery_attempts.http_status')],
  ['latencyMs', jsonValue('webhook_delivery_attempts.latency_ms')],
  ['error', jsonValue('webhook_delivery_attempts.error')],
  ['responseBody', jsonValue('webhook_delivery_attempts.response_body')],
]);

const EVENT_ITEM = jsonObject([
  ['id', jsonValue('events.id')],
  ['type', jsonValue('events.type')],
  ['createdAt', jsonTime('events.created_at')],
  ['data', 'events.data::text'],
  ['requestId', jsonValue('events.request_id')],
]);

/** The keyset page as core/platform/json-page.ts's fetchJsonRows writes it for the deliveries list, unfiltered. */
const DELIVERIES_PAGE = `select '[' || coalesce(string_agg(item, ',' order by n) filter (where n <= $1), '') || ']' as data_json,
      (array_agg("created_at") filter (where n = $2))[1] as "created_at",
      (array_agg("id") filter (where n = $3))[1] as "id",
      count(*) > $4 as has_more
    from (select *, row_number() over (order by "created_at" desc, "id" desc) as n
      from (select ${DELIVERY_ITEM} as item, webhook_deliveries.created_at as "created_at", webhook_deliveries.id as "id"
        from "webhook_deliveries"
        where "organization_id" = $5
        order by webhook_deliveries.created_at desc, webhook_deliveries.id desc
        limit $6) as page) as numbered`;

/**
 * A copy of core/rollups/overview-rollups.ts's OVERVIEW_ROLLUPS_SQL with its `?` placeholders numbered, as knex sends
 * ours (harness.test.ts asserts the two equal), and of its bindings: the windows' first UTC day (30 days), first ISO
 * week's Monday (12 weeks) and the failures' first day (7 days).
 */
export const BARE_OVERVIEW_SQL = `select
  (select coalesce(json_agg(json_build_array(status, n)), '[]')
     from (select status, sum(count) as n from debt_status_counts where organization_id = $1::uuid group by status) s
  ) as debts,
  (select coalesce(json_agg(json_build_array(day, status, n)), '[]')
     from (select day, status, sum(count) as n from webhook_delivery_days
            where organization_id = $2::uuid and day >= $3::date group by day, status) d
  ) as days,
  (select coalesce(sum(count), 0)::bigint from webhook_deliveries_retrying where organization_id = $4::uuid) as retrying,
  (select coalesce(json_agg(json_build_array(week, currency, amount::text, n)), '[]')
     from (select week, currency, sum(amount) as amount, sum(payments) as n from payments_collected_weekly
            where organization_id = $5::uuid and week >= $6::date group by week, currency) w
  ) as weeks,
  (select coalesce(json_agg(json_build_array(id, event_type, url, updated_at) order by updated_at desc, id desc), '[]')
     from (select id, event_type, url, updated_at from webhook_deliveries
            where organization_id = $7::uuid and status = 'Failed' and updated_at >= $8::timestamptz
            order by updated_at desc, id desc limit 20) f
  ) as failed`;
const DAY_MS = 86_400_000;
const utcDay = (date: Date, days = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + days * DAY_MS)
    .toISOString()
    .slice(0, 10);
export function bareOverviewBindings(org: string, now: Date): string[] {
  const firstDay = utcDay(now, -29);
  const firstWeek = utcDay(now, -11 * 7 - ((now.getUTCDay() + 6) % 7));
  const failedSince = `${utcDay(now, -6)}T00:00:00.000Z`;
  return [org, org, firstDay, org, org, firstWeek, org, failedSince];
}

/** A copy of core/staff/console-deliveries.ts's CONSOLE_DELIVERY_SQL: a delivery's page in one statement. */
export const BARE_CONSOLE_DELIVERY_SQL = `select ${jsonObject([
  ...DELIVERY_FIELDS,
  [
    'attempts',
    `(select '[' || coalesce(string_agg(${ATTEMPT_ITEM}, ',' order by webhook_delivery_attempts.number), '') || ']'
      from webhook_delivery_attempts where webhook_delivery_attempts.delivery_id = webhook_deliveries.id)`,
  ],
  [
    'event',
    `coalesce((select ${EVENT_ITEM} from events
      where events.organization_id = webhook_deliveries.organization_id and events.id = webhook_deliveries.event_id),
      'null')`,
  ],
])} as json
  from webhook_deliveries where webhook_deliveries.organization_id = $1 and webhook_deliveries.id = $2`;

/** The console's session cookie on a host without Secure cookies, as the bench's (web/console/shared/http.ts). */
const SESSION_COOKIE = 'console_session';
const IDLE_MS = 30 * 60_000;
const ORGANIZATION_NAME = 'select name from organizations where id = $1';
/** web/page.ts's PAGE_CSP. */
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const STYLESHEET = '/console/assets/site.css';
const CHARTS_STYLESHEET = '/console/assets/charts/site.css';

interface BareSession {
  organizationId: string;
  email: string;
  role: string;
  csrfToken: string;
}

/** The same statement as ours, and the same page rendered from its row. */
async function overviewPage(pool: pg.Pool, named: Named, user: BareUser, org: string): Promise<string> {
  const now = new Date();
  const { rows } = await pool.query<BareOverviewRow>(named(BARE_OVERVIEW_SQL, bareOverviewBindings(org, now)));
  return bareOverviewPage(STYLESHEET, CHARTS_STYLESHEET, user, rows[0]!, now);
}

async function deliveriesPage(pool: pg.Pool, named: Named, user: BareUser, org: string): Promise<string> {
  const { rows } = await pool.query<{ data_json: string; created_at: Date; id: string; has_more: boolean }>(
    named(DELIVERIES_PAGE, [PAGE, PAGE, PAGE, PAGE, org, PAGE + 1]),
  );
  const row = rows[0]!;
  const cursor = row.has_more
    ? Buffer.from(JSON.stringify({ l: 'webhook-deliveries', t: row.created_at.toISOString(), i: row.id })).toString(
        'base64url',
      )
    : null;
  return bareDeliveriesPage(STYLESHEET, user, JSON.parse(row.data_json) as BareDelivery[], cursor);
}

async function deliveryPage(
  pool: pg.Pool,
  named: Named,
  user: BareUser,
  org: string,
  id: string,
): Promise<string | undefined> {
  const { rows } = await pool.query<{ json: string }>(named(BARE_CONSOLE_DELIVERY_SQL, [org, id]));
  if (!rows[0]) return undefined;
  return bareDeliveryPage(STYLESHEET, user, JSON.parse(rows[0].json) as BareDeliveryDetail);
}

/**
 * Answers the console ceilings' routes (`unkeyed` gives each the request id and the log line); false for any other
 * path.
 */
export function consoleCeiling(
  pool: pg.Pool,
  named: Named,
  redis: Redis,
  unkeyed: (route: string, work: BareUnkeyedWork) => (ctx: Koa.Context) => Promise<void>,
): (ctx: Koa.Context) => Promise<boolean> {
  const organizationNames = new Map<string, string>();

  async function signedIn(ctx: Koa.Context): Promise<(BareUser & { organizationId: string }) | undefined> {
    const id = ctx.cookies.get(SESSION_COOKIE);
    if (!id) return undefined;
    const key = `production:console:session:${createHash('sha256').update(id).digest('hex')}`;
    const stored = await redis.get(key);
    if (!stored) return undefined;
    const session = JSON.parse(stored) as BareSession;
    await redis.pexpire(key, IDLE_MS);
    const org = session.organizationId;
    let organizationName = organizationNames.get(org);
    if (organizationName === undefined) {
      const { rows } = await pool.query<{ name: string }>(named(ORGANIZATION_NAME, [org]));
      organizationName = rows[0]?.name ?? '';
      organizationNames.set(org, organizationName);
    }
    return { ...session, organizationName };
  }

  /** A signed-in page: the session, then `render` for the session's organisation; 401 without a session. */
  const page = (
    route: string,
    render: (user: BareUser, org: string, ctx: Koa.Context) => Promise<string | undefined>,
  ) =>
    unkeyed(route, async (ctx) => {
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('Referrer-Policy', 'same-origin');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Cache-Control', 'no-store');
      const user = await signedIn(ctx);
      const html = user ? await render(user, user.organizationId, ctx) : undefined;
      ctx.status = user ? (html === undefined ? 404 : 200) : 401;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html ?? '';
    });
  const overview = page('/console', (user, org) => overviewPage(pool, named, user, org));
  const deliveries = page('/console/deliveries', (user, org) => deliveriesPage(pool, named, user, org));
  const delivery = page('/console/deliveries/:id', (user, org, ctx) =>
    deliveryPage(pool, named, user, org, String(ctx.query.id)),
  );

  return async (ctx) => {
    if (ctx.method !== 'GET' || !ctx.path.startsWith('/console/')) return false;
    if (ctx.path === '/console/overview') await overview(ctx);
    else if (ctx.path === '/console/deliveries') await deliveries(ctx);
    else if (ctx.path === '/console/delivery') await delivery(ctx);
    else return false;
    return true;
  };
}
