/**
 * A placement's first step: every row read and checked as `POST /v1/debts` checks a request before it writes, the
 * problems of those that cannot be raised recorded; then the placement moves on to `Importing` (or, for a dry run,
 * finishes).
 */
import type { PlacementRow, PlacementStatus, RowProblemRecord } from './placements';
import { recordRowProblems } from './placements';
import { finish, recordEnd, type ValidationResult } from './placement-end';
import { checkedProblems, loadRow, openRows, type PlacementRef, type PlacementWorkDeps } from './placement-work';
import { FILE_START, PlacementFileError } from './row-reader';

/** Problems are written in batches of this many while validating. */
const PROBLEM_BATCH = 500;

/**
 * Reads every row and records the problems of those that cannot be raised; then the placement moves on to
 * `Importing` (or, for a dry run, finishes). Idempotent: a retry reads the file again and records nothing twice.
 * A file that cannot be read on fails the placement; a cancel asked meanwhile cancels it.
 */
export async function validatePlacement(deps: PlacementWorkDeps, ref: PlacementRef): Promise<ValidationResult> {
  const placement = await loadRow(deps.db, ref);
  if (placement.status !== 'Validating')
    return { status: placement.status, rows: placement.rows, failed: placement.failed };
  let rows = 0;
  let failed = 0;
  let batch: RowProblemRecord[] = [];
  const flush = async () => {
    await recordRowProblems(deps.db, ref.organizationId, ref.placementId, batch);
    batch = [];
    deps.heartbeat?.();
  };
  try {
    for await (const read of await openRows(deps, placement, FILE_START)) {
      rows++;
      const problems = checkedProblems(deps, read);
      if (problems.length > 0) {
        failed++;
        batch.push(...problems.map((p) => ({ ...p, row: read.row, outcome: 'failed' as const })));
      }
      if (rows % PROBLEM_BATCH === 0) {
        await flush();
        if ((await loadRow(deps.db, ref)).cancel_requested) return finish(deps.db, ref, 'Cancelled');
      }
    }
    await flush();
  } catch (err) {
    if (err instanceof PlacementFileError) return finish(deps.db, ref, 'Failed', err.message);
    throw err;
  }
  const next: PlacementStatus = placement.validate_only
    ? failed > 0
      ? 'CompletedWithErrors'
      : 'Completed'
    : rows === failed
      ? 'CompletedWithErrors'
      : 'Importing';
  const finished = next !== 'Importing';
  const updated = await deps.db.transaction(async (trx) => {
    const [row] = await trx('placements')
      .where({ id: ref.placementId, organization_id: ref.organizationId, status: 'Validating' })
      .update({
        status: next,
        rows,
        failed,
        updated_at: trx.fn.now(3),
        ...(finished ? { completed_at: trx.fn.now(3) } : {}),
      })
      .returning<PlacementRow[]>('*');
    if (row) await recordEnd(trx, row);
    return row;
  });
  const now = updated ?? (await loadRow(deps.db, ref));
  return { status: now.status, rows: now.rows, failed: now.failed };
}
