/**
 * The Overview's figures in one statement over the rollups kept by triggers (migration 20261211090000) and one index
 * range of `webhook_deliveries_failed_by_update`: every part reads a bounded number of rows whatever the tenant's
 * size (at most 16 slot rows per key, 30 days, 12 weeks, 20 failures), so the page costs the same at 1,000 deliveries
 * and at 1,000,000. Scoped to the organisation; a named statement, planned once per connection.
 */
import { DEBT_STATUSES, type DebtStatus } from '../debts/debt-status';
import type { Db } from '../platform/db';
import { prepared } from '../platform/prepared';

export const DELIVERY_DAYS = 30;
export const COLLECTED_WEEKS = 12;
export const FAILED_DAYS = 7;
export const FAILED_LIST_LIMIT = 20;

const DAY_MS = 86_400_000;

/**
 * `Failed` is written into the text, not bound: the generic plan can use the partial index of failed deliveries only
 * when its condition is in the statement. Money leaves as text (`amount::text`), never through a JSON number.
 */
export const OVERVIEW_ROLLUPS_SQL = `select
  (select coalesce(json_agg(json_build_array(status, n)), '[]')
     from (select status, sum(count) as n from debt_status_counts where organization_id = ?::uuid group by status) s
  ) as debts,
  (select coalesce(json_agg(json_build_array(day, status, n)), '[]')
     from (select day, status, sum(count) as n from webhook_delivery_days
            where organization_id = ?::uuid and day >= ?::date group by day, status) d
  ) as days,
  (select coalesce(sum(count), 0)::bigint from webhook_deliveries_retrying where organization_id = ?::uuid) as retrying,
  (select coalesce(json_agg(json_build_array(week, currency, amount::text, n)), '[]')
     from (select week, currency, sum(amount) as amount, sum(payments) as n from payments_collected_weekly
            where organization_id = ?::uuid and week >= ?::date group by week, currency) w
  ) as weeks,
  (select coalesce(json_agg(json_build_array(id, event_type, url, updated_at) order by updated_at desc, id desc), '[]')
     from (select id, event_type, url, updated_at from webhook_deliveries
            where organization_id = ?::uuid and status = 'Failed' and updated_at >= ?::timestamptz
            order by updated_at desc, id desc limit ${FAILED_LIST_LIMIT}) f
  ) as failed`;

export interface DeliveryDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  succeeded: number;
  failed: number;
}

export interface CollectedWeek {
  /** The week's Monday, `YYYY-MM-DD`, UTC. */
  week: string;
  /** Exact decimal text. */
  amount: string;
  payments: number;
}

export interface RecentFailure {
  id: string;
  eventType: string;
  url: string;
  failedAt: string;
}

export interface OverviewFigures {
  /** Every status, in lifecycle order, with zeros. */
  debtsByStatus: { status: DebtStatus; count: number }[];
  /** The last DELIVERY_DAYS UTC days, oldest first, today last, with zeros. */
  deliveryDays: DeliveryDay[];
  /** Deliveries waiting to retry after a failed attempt. */
  failingNow: number;
  /** Per currency (alphabetical), the last COLLECTED_WEEKS weeks, oldest first, with zeros. */
  collected: { currency: string; weeks: CollectedWeek[] }[];
  /** The newest failures since the start of the UTC day FAILED_DAYS − 1 days ago. */
  recentFailures: RecentFailure[];
  /** When the failures' window starts (the first of the FAILED_DAYS days). */
  failedSince: string;
}

/** `YYYY-MM-DD` of the UTC day `days` after `date`'s. */
export function utcDay(date: Date, days = 0): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + days * DAY_MS)
    .toISOString()
    .slice(0, 10);
}

/** The Monday (UTC) of `date`'s ISO week, moved by `weeks`. */
export function utcWeek(date: Date, weeks = 0): string {
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return utcDay(date, weeks * 7 - sinceMonday);
}

/** The statement's bindings for `organizationId` at `now`, and the windows' first day and week. */
export function overviewBindings(organizationId: string, now: Date) {
  const firstDay = utcDay(now, -(DELIVERY_DAYS - 1));
  const firstWeek = utcWeek(now, -(COLLECTED_WEEKS - 1));
  const failedSince = `${utcDay(now, -(FAILED_DAYS - 1))}T00:00:00.000Z`;
  return {
    firstDay,
    firstWeek,
    failedSince,
    bindings: [
      organizationId,
      organizationId,
      firstDay,
      organizationId,
      organizationId,
      firstWeek,
      organizationId,
      failedSince,
    ],
  };
}

/** The statement's one row. */
export interface OverviewRow {
  debts: [DebtStatus, number][];
  days: [string, 'Succeeded' | 'Failed', number][];
  retrying: string;
  weeks: [string, string, string, number][];
  failed: [string, string, string, string][];
}

export async function loadOverviewFigures(db: Db, organizationId: string, now = new Date()): Promise<OverviewFigures> {
  const { bindings } = overviewBindings(organizationId, now);
  const { rows } = await prepared(db.raw<{ rows: OverviewRow[] }>(OVERVIEW_ROLLUPS_SQL, bindings));
  return toOverviewFigures(rows[0]!, now);
}

/** The statement's row as the page's figures, with zeros for the days, weeks and statuses it has no row for. */
export function toOverviewFigures(row: OverviewRow, now: Date): OverviewFigures {
  const { firstDay, firstWeek, failedSince } = overviewBindings('', now);

  const debts = new Map(row.debts.map(([status, n]) => [status, Number(n)]));
  const days = new Map<string, DeliveryDay>();
  for (let i = 0; i < DELIVERY_DAYS; i++) {
    const day = utcDay(new Date(`${firstDay}T00:00:00Z`), i);
    days.set(day, { day, succeeded: 0, failed: 0 });
  }
  for (const [day, status, n] of row.days) {
    const entry = days.get(day);
    if (entry) entry[status === 'Succeeded' ? 'succeeded' : 'failed'] = Number(n);
  }
  const byCurrency = new Map<string, Map<string, CollectedWeek>>();
  for (const [week, currency, amount, n] of row.weeks) {
    let weeks = byCurrency.get(currency);
    if (!weeks) {
      weeks = new Map();
      for (let i = 0; i < COLLECTED_WEEKS; i++) {
        const monday = utcDay(new Date(`${firstWeek}T00:00:00Z`), i * 7);
        weeks.set(monday, { week: monday, amount: '0', payments: 0 });
      }
      byCurrency.set(currency, weeks);
    }
    const entry = weeks.get(week);
    if (entry) Object.assign(entry, { amount, payments: Number(n) });
  }
  return {
    debtsByStatus: DEBT_STATUSES.map((status) => ({ status, count: debts.get(status) ?? 0 })),
    deliveryDays: [...days.values()],
    failingNow: Number(row.retrying),
    collected: [...byCurrency.keys()]
      .sort()
      .map((currency) => ({ currency, weeks: [...byCurrency.get(currency)!.values()] })),
    recentFailures: row.failed.map(([id, eventType, url, updatedAt]) => ({
      id,
      eventType,
      url,
      failedAt: new Date(updatedAt).toISOString(),
    })),
    failedSince,
  };
}
