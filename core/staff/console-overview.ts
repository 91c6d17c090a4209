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
 * The failures are read by named statements (core/platform/prepared.ts: parsed and planned once per connection), with
 * `Failed` written into the text: a generic plan can use the partial index of failed deliveries (migration
 * 20261204140000) only when its condition is in the statement, not a parameter. The debt counts are planned for each
 * tenant instead: a generic plan expects an average tenant's share of the table, hundreds of thousands of rows, and
 * counts them with parallel workers, 37 ms where the tenant's own plan takes 1.5 ms (docs/operators/performance.md).
 */
export async function loadConsoleOverview(db: Db, organizationId: string, now = new Date()): Promise<ConsoleOverview> {
  const since = new Date(now.getTime() - FAILED_DELIVERIES_WINDOW_MS);
  const failedSince = () =>
    db('webhook_deliveries')
      .where({ organization_id: organizationId })
      .whereRaw(`status = 'Failed'`)
      .where('updated_at', '>=', since);
  const [counts, failed, failedCount] = await Promise.all([
    db('debts')
      .where({ organization_id: organizationId })
      .whereIn('status', [...NON_TERMINAL_STATUSES])
      .groupBy('status')
      .select('status')
      .count<{ status: DebtStatus; count: number }[]>('* as count'),
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
  const byStatus = new Map(counts.map((c) => [c.status, Number(c.count)]));
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
