/**
 * What the console's Overview shows: debts by status, deliveries per day by outcome over 30 days with
 * the success rate, the deliveries failing now (waiting to retry after a failed attempt), the failures of the last
 * 7 days (counted and the newest listed: the spec's "surfaced in the client dashboard"), and the payments collected
 * per week and currency. Read from rollups kept by triggers, so the page costs the same at any tenant size
 * (core/rollups/overview-rollups.ts).
 */
import { NON_TERMINAL_STATUSES, type DebtStatus } from '../debts/debt-status';
import type { Db } from '../platform/db';
import { FAILED_DAYS, loadOverviewFigures, type OverviewFigures } from '../rollups/overview-rollups';

export interface ConsoleOverview extends OverviewFigures {
  openDebts: { status: DebtStatus; count: number }[];
  /** Failed deliveries whose failure falls in the last FAILED_DAYS UTC days (today included). */
  failedDeliveryCount: number;
}

export async function loadConsoleOverview(db: Db, organizationId: string, now = new Date()): Promise<ConsoleOverview> {
  return toConsoleOverview(await loadOverviewFigures(db, organizationId, now));
}

export function toConsoleOverview(figures: OverviewFigures): ConsoleOverview {
  return {
    ...figures,
    openDebts: figures.debtsByStatus.filter((row) => NON_TERMINAL_STATUSES.includes(row.status)),
    failedDeliveryCount: figures.deliveryDays.slice(-FAILED_DAYS).reduce((sum, day) => sum + day.failed, 0),
  };
}
