/**
 * The console pages' bare ceilings (mounted by bare-server.ts, its own process): each page's SQL, the same statements
 * ours sends, on the plain `pg` driver as named statements, and the rows written out as JSON — no session, no Koa
 * middleware stack, no page rendered (but for the Overview's body, below). A soft ceiling flatters every ratio, so
 * nothing else is done here.
 *   GET /console/overview?org=<id>             the Overview's one statement over the rollups (issue 40), and its body
 *                                              rendered as ours renders it (charts and tables), without the layout
 *   GET /console/deliveries?org=<id>           the Deliveries page's keyset page of 50 (JSON built by PostgreSQL)
 *   GET /console/delivery?org=<id>&id=<uuid>   a delivery, its attempts and its event's JSON
 */
import type Koa from 'koa';
import type pg from 'pg';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import {
  OVERVIEW_ROLLUPS_SQL,
  overviewBindings,
  toOverviewFigures,
  type OverviewRow,
} from '../../core/rollups/overview-rollups';
import { toConsoleOverview } from '../../core/staff/console-overview';
import { OverviewBody } from '../../web/console/account/overview-page';
import { jsonObject, jsonTime, jsonValue } from '../../core/platform/json-page';
import type { Named } from './bare-api-routes';

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

/** The Overview's statement as knex sends ours: its `?` placeholders numbered. */
let placeholder = 0;
const OVERVIEW = OVERVIEW_ROLLUPS_SQL.replace(/\?/g, () => `$${++placeholder}`);

/** The delivery page's statements, as knex writes ours (their text and parameters). */
const DELIVERY = `select * from "webhook_deliveries" where "organization_id" = $1 and "id" = $2 limit $3`;
const ATTEMPTS = `select * from "webhook_delivery_attempts" where "delivery_id" = $1 order by "number" asc`;
const EVENT = `select ${EVENT_ITEM} as json from "events" where "organization_id" = $1 and "id" = $2 limit $3`;

/**
 * The same statement and the same body as ours: the issue asks the ceiling to render the page's charts too, so the
 * ratio to it says what the session, the middleware and the layout cost.
 */
async function overview(pool: pg.Pool, named: Named, org: string): Promise<string> {
  const now = new Date();
  const { rows } = await pool.query<OverviewRow>(named(OVERVIEW, overviewBindings(org, now).bindings));
  const body = toConsoleOverview(toOverviewFigures(rows[0]!, now));
  return renderToString(h(OverviewBody, { overview: body, chartsStylesheetHref: '/console/assets/charts/site.css' }));
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
