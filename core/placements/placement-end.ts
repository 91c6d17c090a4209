/**
 * How a placement ends: `Completed` when every row was imported or skipped, `CompletedWithErrors` when some failed,
 * or `Failed`/`Cancelled`; with its event, in the transaction that ends it.
 */
import { recordEvent } from '../events/outbox';
import type { Db, Trx } from '../platform/db';
import { toPlacement, type PlacementRow, type PlacementStatus } from './placements';
import { loadRow, type PlacementRef } from './placement-work';

export interface ValidationResult {
  status: PlacementStatus;
  rows: number;
  failed: number;
}

/**
 * Ends the placement: `Completed` when every row was imported or skipped, `CompletedWithErrors` when some failed,
 * or the given end (`Failed`, `Cancelled`). A placement already finished stays as it is.
 */
export async function finish(
  db: Db,
  ref: PlacementRef,
  end?: 'Failed' | 'Cancelled',
  failureReason?: string,
): Promise<ValidationResult> {
  const row = await loadRow(db, ref);
  const status: PlacementStatus =
    end ?? (row.cancel_requested ? 'Cancelled' : row.failed > 0 ? 'CompletedWithErrors' : 'Completed');
  const updated = await db.transaction(async (trx) => {
    const [ended] = await trx('placements')
      .where({ id: ref.placementId, organization_id: ref.organizationId })
      .whereIn('status', ['Validating', 'Importing'])
      .update({
        status,
        failure_reason: failureReason ?? null,
        completed_at: trx.fn.now(3),
        updated_at: trx.fn.now(3),
      })
      .returning<PlacementRow[]>('*');
    if (ended) await recordEnd(trx, ended);
    return ended;
  });
  const now = updated ?? row;
  return { status: now.status, rows: now.rows, failed: now.failed };
}

/**
 * The event of a placement that just ended, in the transaction that ended it: `placement.completed` (with or without
 * errors, a dry run's too) or `placement.failed`; a cancelled one sends none (its client asked for it).
 */
export async function recordEnd(trx: Trx, row: PlacementRow): Promise<void> {
  const placement = toPlacement(row);
  if (row.status === 'Completed' || row.status === 'CompletedWithErrors') {
    await recordEvent(trx, row.organization_id, 'placement.completed', { placement });
  } else if (row.status === 'Failed') {
    await recordEvent(trx, row.organization_id, 'placement.failed', { placement });
  }
}
