/**
 * What the console's Overview shows: open debts by status, and deliveries that reached `Failed` recently (the spec's
 * "surfaced in the client dashboard"). Tenant-scoped reads, organisation first.
 */
import { NON_TERMINAL_STATUSES, type DebtStatus } from '../debts/debt-status';
import type { Db } from '../platform/db';

export const FAILED_DELIVERIES_WINDOW_MS = 7 * 86_400_000;
const FAILED_LIST_LIMIT = 20;

export interface ConsoleOverview {
  openDebts: { status: DebtStatus; count: number }[];
  failedDeliveries: { id: string; eventType: string; url: string; failedAt: string }[];
  failedDeliveryCount: number;
}

export async function loadConsoleOverview(db: Db, organizationId: string, now = new Date()): Promise<ConsoleOverview> {
  const since = new Date(now.getTime() - FAILED_DELIVERIES_WINDOW_MS);
  const [counts, failed, failedCount] = await Promise.all([
    db('debts')
      .where({ organization_id: organizationId })
      .whereIn('status', [...NON_TERMINAL_STATUSES])
      .groupBy('status')
      .select('status')
      .count<{ status: DebtStatus; count: number }[]>('* as count'),
    db('webhook_deliveries')
      .where({ organization_id: organizationId, status: 'Failed' })
      .where('updated_at', '>=', since)
      .orderBy('updated_at', 'desc')
      .limit(FAILED_LIST_LIMIT)
      .select('id', 'event_type', 'url', 'updated_at'),
    db('webhook_deliveries')
      .where({ organization_id: organizationId, status: 'Failed' })
      .where('updated_at', '>=', since)
      .count<{ count: number }[]>('* as count'),
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
