/**
 * The console pages' bare ceilings (mounted by bare-server.ts, its own process): each page's SQL, the same statements
 * ours sends, on the plain `pg` driver as named statements, and the rows written out as JSON — no session, no Koa
 * middleware stack, no page rendered. A soft ceiling flatters every ratio, so nothing else is done here. Written from
 * the libraries alone: the JSON expressions' helpers and the Overview's statement are copies of ours
 * (core/platform/json-page.ts, core/rollups/overview-rollups.ts), which
 * harness.test.ts asserts equal. Ours renders the pages (the Overview's charts too): that cost is inside the ratio.
 *   GET /console/overview?org=<id>             the Overview's one statement over the rollups (issue 40), its row as JSON
 *   GET /console/deliveries?org=<id>           the Deliveries page's keyset page of 50 (JSON built by PostgreSQL)
 *   GET /console/delivery?org=<id>&id=<uuid>   a delivery, its attempts and its event's JSON
 */
import type Koa from 'koa';
import type pg from 'pg';
import type { Named } from './bare-api-routes';

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
const DELIVERY_ITEM = jsonObject([
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

/** The delivery page's statements, as knex writes ours (their text and parameters). */
const DELIVERY = `select * from "webhook_deliveries" where "organization_id" = $1 and "id" = $2 limit $3`;
const ATTEMPTS = `select * from "webhook_delivery_attempts" where "delivery_id" = $1 order by "number" asc`;
const EVENT = `select ${EVENT_ITEM} as json from "events" where "organization_id" = $1 and "id" = $2 limit $3`;

/**
 * The same statement and the same body as ours: the issue asks the ceiling to render the page's charts too, so the
 * ratio to it says what the session, the middleware and the layout cost.
 */
async function overview(pool: pg.Pool, named: Named, org: string): Promise<string> {
  const { rows } = await pool.query<Record<string, unknown>>(
    named(BARE_OVERVIEW_SQL, bareOverviewBindings(org, new Date())),
  );
  return JSON.stringify(rows[0]);
}

async function deliveries(pool: pg.Pool, named: Named, org: string): Promise<string> {
  const { rows } = await pool.query<{ data_json: string; created_at: Date; id: string; has_more: boolean }>(
    named(DELIVERIES_PAGE, [PAGE, PAGE, PAGE, PAGE, org, PAGE + 1]),
  );
  const row = rows[0]!;
  const cursor = row.has_more
    ? Buffer.from(JSON.stringify({ l: 'webhook-deliveries', t: row.created_at.toISOString(), i: row.id })).toString(
        'base64url',
      )
    : null;
  return `{"data":${row.data_json},"nextCursor":${JSON.stringify(cursor)}}`;
}

async function delivery(pool: pg.Pool, named: Named, org: string, id: string): Promise<string | undefined> {
  const found = await pool.query<{ event_id: string }>(named(DELIVERY, [org, id, 1]));
  const row = found.rows[0];
  if (!row) return undefined;
  const attempts = await pool.query(named(ATTEMPTS, [id]));
  const event = await pool.query<{ json: string }>(named(EVENT, [org, row.event_id, 1]));
  return JSON.stringify({ ...row, attempts: attempts.rows, event: event.rows[0]?.json ?? null });
}

/** Answers the console ceilings' routes; false for any other path. */
export async function consoleCeiling(pool: pg.Pool, named: Named, ctx: Koa.Context): Promise<boolean> {
  if (ctx.method !== 'GET' || !ctx.path.startsWith('/console/')) return false;
  const org = String(ctx.query.org);
  ctx.type = 'application/json';
  if (ctx.path === '/console/overview') {
    ctx.type = 'text/html';
    ctx.body = await overview(pool, named, org);
  } else if (ctx.path === '/console/deliveries') ctx.body = await deliveries(pool, named, org);
  else if (ctx.path === '/console/delivery') {
    const body = await delivery(pool, named, org, String(ctx.query.id));
    ctx.status = body === undefined ? 404 : 200;
    ctx.body = body ?? '{}';
  } else return false;
  return true;
}
