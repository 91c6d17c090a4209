/**
 * What the console's Overview shows: open debts by status, and deliveries that reached `Failed` recently (the spec's
 * "surfaced in the client dashboard"). Tenant-scoped reads, organisation first.
 */
import { NON_TERMINAL_STATUSES, type DebtStatus } from '../debts/debt-status';
import type { Db } from '../platform/db';
import { prepared } from '../platform/prepared';

export const FAILED_DELIVERIES_WINDOW_MS = 7 * 86_400_000;
const FAILED_LIST_LIMIT = 20;

export interface ConsoleOverview {
  openDebts: { status: DebtStatus; count: number }[];
  failedDeliveries: { id: string; eventType: string; url: string; failedAt: string }[];
  failedDeliveryCount: number;
}

/**
 * Each read is a named statement (core/platform/prepared.ts), planned once per connection, generically: for any
 * tenant. `Failed` is written into the failures' text, as a generic plan can use the partial index of failed
 * deliveries (migration 20261204140000) only when its condition is in the statement, not a parameter. The open debts
 * are counted one status at a time, each an index-only range of `debts_by_status`: as one `group by` over the
 * tenant's open debts, the generic plan expected an average tenant's share of the table and counted it with parallel
 * workers, 37–70 ms where the ranges take 1.5 ms (docs/operators/performance.md, "Console pages").
 */
const OPEN_DEBT_COUNTS = `select s.status, (select count(*) from debts where organization_id = ? and status = s.status) as count
  from unnest(?::text[]) as s(status)`;

export async function loadConsoleOverview(db: Db, organizationId: string, now = new Date()): Promise<ConsoleOverview> {
  const since = new Date(now.getTime() - FAILED_DELIVERIES_WINDOW_MS);
  const failedSince = () =>
    db('webhook_deliveries')
      .where({ organization_id: organizationId })
      .whereRaw(`status = 'Failed'`)
      .where('updated_at', '>=', since);
  const [counts, failed, failedCount] = await Promise.all([
    prepared(
      db.raw<{ rows: { status: DebtStatus; count: string }[] }>(OPEN_DEBT_COUNTS, [
        organizationId,
        `{${NON_TERMINAL_STATUSES.join(',')}}`,
      ]),
    ),
    prepared(
      failedSince()
        .orderBy([
          { column: 'updated_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(FAILED_LIST_LIMIT)
        .select<{ id: string; event_type: string; url: string; updated_at: Date }[]>(
          'id',
          'event_type',
          'url',
          'updated_at',
        ),
    ),
    prepared(failedSince().count<{ count: number }[]>('* as count')),
  ]);
  const byStatus = new Map(counts.rows.map((c) => [c.status, Number(c.count)]));
  return {
    openDebts: NON_TERMINAL_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
    failedDeliveries: failed.map((d) => ({
      id: d.id,
      eventType: d.event_type,
      url: d.url,
      failedAt: d.updated_at.toISOString(),
    })),
    failedDeliveryCount: Number(failedCount[0]?.count ?? 0),
  };
}
