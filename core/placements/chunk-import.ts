/**
 * A placement's import, one chunk at a time, each chunk in transactions of up to `TRANSACTION_ROWS` rows. Each
 * transaction's debts (each through `createDebt`, as `POST /v1/debts` raises one: debtor, debt and `debt.created`,
 * whose consumers start the lifecycle and mail the debtor), its rows' problems and the placement's counts and resume
 * position commit together or not at all. A retried chunk therefore starts where the last committed transaction
 * ended, and no row is imported twice; a row whose account already has an open debt (a file sent again) is skipped,
 * naming that debt.
 */
import { createDebt } from '../debts/debt-creation';
import { asBulkWork } from '../events/bulk-work';
import type { Trx } from '../platform/db';
import { recordRowProblems, type RowProblemRecord } from './placements';
import { finish } from './placement-end';
import { checkedProblems, loadRow, openRows, type PlacementRef, type PlacementWorkDeps } from './placement-work';
import { PlacementFileError, type ReadRow, type RowPosition } from './row-reader';
import { asRowProblems, type RowProblem } from './row-problems';

/** A chunk's attempt says it is alive every this many rows, so a killed worker's chunk is retried soon. */
const HEARTBEAT_ROWS = 50;

/**
 * Rows per transaction. A transaction that has written holds back the outbox's horizon for the whole database
 * (events/cursor.ts): no relay takes an event committed after it began until it ends. A chunk's 500 rows in one
 * transaction (1.5–3 s) made every other tenant's lifecycle starts and debtor mail wait for it; 100 rows take a few
 * hundred milliseconds.
 */
export const TRANSACTION_ROWS = 100;

export interface ChunkResult {
  /** No rows left (or the placement stopped): the workflow finishes it. */
  done: boolean;
  /** Rows this chunk read (imported, skipped or failed). */
  rows: number;
  /** Rows done so far, and the placement's total, for progress. */
  position: number;
}

/**
 * Imports the next `chunkRows` rows after the last committed transaction, `TRANSACTION_ROWS` at a time. Rows found
 * invalid by the validation are passed over (their problems are recorded already). The placement's position moves
 * only if no other attempt committed those rows meanwhile (a straggling retry): then this one rolls back and reports
 * where things are.
 */
export async function importChunk(deps: PlacementWorkDeps, ref: PlacementRef, chunkRows: number): Promise<ChunkResult> {
  const placement = await loadRow(deps.db, ref);
  const from: RowPosition = { row: placement.next_row, offset: Number(placement.next_offset) };
  const position = from.row;
  if (placement.status !== 'Importing' || placement.cancel_requested || from.offset >= Number(placement.size)) {
    return { done: true, rows: 0, position };
  }
  const rows: ReadRow[] = [];
  let next = from;
  let ended = true;
  try {
    for await (const read of await openRows(deps, placement, from)) {
      rows.push(read);
      next = read.next;
      if (rows.length >= chunkRows) {
        ended = false;
        break;
      }
    }
  } catch (err) {
    if (err instanceof PlacementFileError) {
      await finish(deps.db, ref, 'Failed', err.message);
      return { done: true, rows: 0, position };
    }
    throw err;
  }
  // Past the last row: whatever follows (blank lines) is no row.
  if (ended) next = { row: next.row, offset: Number(placement.size) };
  // Most transactions raise every row: they run without a savepoint per row (three round trips a row become one,
  // and PostgreSQL keeps no subtransaction per row: past 64 in one transaction every other session's snapshot checks
  // slow down). The first refused row undoes that attempt, and it runs again with a savepoint per row.
  let at = from;
  for (let start = 0; start === 0 || start < rows.length; start += TRANSACTION_ROWS) {
    const slice = rows.slice(start, start + TRANSACTION_ROWS);
    const last = start + TRANSACTION_ROWS >= rows.length;
    const span = { from: at, next: last ? next : slice[slice.length - 1]!.next };
    // Bulk work (core/events/bulk-work.ts): the organisation's debts raised otherwise are started and mailed first.
    const commit = (perRow: RowRaise) =>
      deps.db.transaction((trx) => importRows(deps, asBulkWork(trx), ref, slice, span, perRow));
    const committed = await commit(raiseOrUndoTransaction)
      .catch((err: unknown) => {
        if (err instanceof RowRefusedError) return commit(raiseUnderSavepoint);
        throw err;
      })
      .catch((err: unknown) => {
        if (err instanceof ChunkTakenError) return false;
        throw err;
      });
    if (!committed) return { done: false, rows: start, position: at.row };
    deps.heartbeat?.();
    at = span.next;
  }
  return { done: ended, rows: rows.length, position: next.row };
}

/** Rows of a chunk in one transaction: their debts, their problems, and the placement's counts and position. */
async function importRows(
  deps: PlacementWorkDeps,
  trx: Trx,
  ref: PlacementRef,
  rows: ReadRow[],
  span: { from: RowPosition; next: RowPosition },
  raise: RowRaise,
): Promise<true> {
  const counts = { imported: 0, skipped: 0, failed: 0 };
  const problems: RowProblemRecord[] = [];
  for (const [i, read] of rows.entries()) {
    if (i % HEARTBEAT_ROWS === 0) deps.heartbeat?.();
    if (checkedProblems(deps, read).length > 0 || !read.body) continue;
    const refused = await raise(trx, ref.organizationId, read.body);
    if (!refused) {
      counts.imported++;
      continue;
    }
    const skipped = refused.some((p) => p.code === 'external_account_id_in_use' && p.existingDebtId);
    counts[skipped ? 'skipped' : 'failed']++;
    problems.push(...refused.map((p) => ({ ...p, row: read.row, outcome: skipped ? 'skipped' : 'failed' }) as const));
  }
  await recordRowProblems(trx, ref.organizationId, ref.placementId, problems);
  const moved = await trx('placements')
    .where({ id: ref.placementId, organization_id: ref.organizationId, next_row: span.from.row, status: 'Importing' })
    .update({
      next_row: span.next.row,
      next_offset: span.next.offset,
      imported: trx.raw('imported + ?', [counts.imported]),
      skipped: trx.raw('skipped + ?', [counts.skipped]),
      failed: trx.raw('failed + ?', [counts.failed]),
      updated_at: trx.fn.now(3),
    });
  if (moved === 0) await trx.rollback(new ChunkTakenError());
  return true;
}

/** Raises one row's debt: its problems when it is refused, or undefined once raised. */
type RowRaise = (trx: Trx, organizationId: string, body: Record<string, unknown>) => Promise<RowProblem[] | undefined>;

/** Raises the row with no savepoint: a refusal leaves the transaction aborted, so it undoes the whole transaction. */
const raiseOrUndoTransaction: RowRaise = async (trx, organizationId, body) => {
  try {
    await createDebt(trx, organizationId, body);
    return undefined;
  } catch (err) {
    throw new RowRefusedError(err);
  }
};

/**
 * Raises the row under a savepoint, so a refusal the database finds (an unknown debtor, an account raised meanwhile)
 * undoes only that row.
 */
const raiseUnderSavepoint: RowRaise = async (trx, organizationId, body) => {
  await trx.raw('savepoint placement_row');
  try {
    await createDebt(trx, organizationId, body);
    await trx.raw('release savepoint placement_row');
    return undefined;
  } catch (err) {
    await trx.raw('rollback to savepoint placement_row');
    return asRowProblems(err);
  }
};

class RowRefusedError extends Error {
  constructor(cause: unknown) {
    super('a row of the chunk was refused', { cause });
    this.name = 'RowRefusedError';
  }
}

class ChunkTakenError extends Error {
  constructor() {
    super('another attempt committed this chunk');
    this.name = 'ChunkTakenError';
  }
}
