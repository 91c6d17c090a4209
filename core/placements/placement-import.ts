/**
 * The work of a placement's workflow (activities/placements.ts runs it): validate every row, then import the file a
 * chunk at a time. Each chunk is one transaction: its debts (each through `createDebt`, as `POST /v1/debts` raises
 * one: debtor, debt and `debt.created`, whose consumers start the lifecycle and mail the debtor), its rows' problems
 * and the placement's counts and resume position commit together or not at all. A retried chunk therefore starts
 * where the last committed one ended, and no row is imported twice; a row whose account already has an open debt
 * (a file sent again) is skipped, naming that debt.
 */
import type { Readable } from 'node:stream';
import { createDebt } from '../debts/debt-creation';
import type { DocumentStore } from '../documents/store';
import type { Db, Trx } from '../platform/db';
import { recordEvent } from '../events/outbox';
import {
  getPlacementRow,
  toPlacement,
  recordRowProblems,
  type PlacementRow,
  type PlacementStatus,
  type RowProblemRecord,
} from './placements';
import { PlacementFileError, readRows, FILE_START, type ReadRow, type RowPosition } from './row-reader';
import { asRowProblems, type RowProblem } from './row-problems';

/**
 * Checks a row's body as `POST /v1/debts` checks a request's before it writes (its JSON Schema, then the debt's own
 * rules); the problems, none when the row can be raised. Passed in: the schema is the API's (api/schemas).
 */
export type RowChecker = (body: Record<string, unknown>) => RowProblem[];

export interface PlacementWorkDeps {
  db: Db;
  store: DocumentStore;
  checkRow: RowChecker;
  /** Called every few hundred rows of a long step (an activity's heartbeat). */
  heartbeat?: () => void;
}

export interface PlacementRef {
  organizationId: string;
  placementId: string;
}

/** A chunk's attempt says it is alive every this many rows, so a killed worker's chunk is retried soon. */
const HEARTBEAT_ROWS = 50;

/** Problems are written in batches of this many while validating. */
const PROBLEM_BATCH = 500;

async function loadRow(db: Db | Trx, ref: PlacementRef): Promise<PlacementRow> {
  const row = await getPlacementRow(db, ref.organizationId, ref.placementId);
  if (!row) throw new PlacementMissingError(ref.placementId);
  return row;
}

/** The placement's row is not (yet) committed: the API starts the workflow just before it commits the row. */
export class PlacementMissingError extends Error {
  constructor(placementId: string) {
    super(`placement ${placementId} has no row (yet)`);
    this.name = 'PlacementMissingError';
  }
}

async function openRows(
  deps: PlacementWorkDeps,
  row: PlacementRow,
  from: RowPosition,
): Promise<AsyncGenerator<ReadRow>> {
  const stream: Readable = await deps.store.get(row.storage_key, { start: from.offset });
  return readRows(stream, row.format, from, row.columns ?? []);
}

/** The status the workflow starts from (the row must exist: see `PlacementMissingError`). */
export async function placementStatus(db: Db, ref: PlacementRef): Promise<PlacementStatus> {
  return (await loadRow(db, ref)).status;
}

function checkedProblems(deps: PlacementWorkDeps, read: ReadRow): RowProblem[] {
  return read.problems ?? (read.body ? deps.checkRow(read.body) : []);
}

export interface ValidationResult {
  status: PlacementStatus;
  rows: number;
  failed: number;
}

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

export interface ChunkResult {
  /** No rows left (or the placement stopped): the workflow finishes it. */
  done: boolean;
  /** Rows this chunk read (imported, skipped or failed). */
  rows: number;
  /** Rows done so far, and the placement's total, for progress. */
  position: number;
}

/**
 * Imports the next `chunkRows` rows after the last committed chunk, in one transaction. Rows found invalid by the
 * validation are passed over (their problems are recorded already). The placement's position moves only if no other
 * attempt committed this chunk meanwhile (a straggling retry): then this one rolls back and reports where things are.
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
  const committed = await deps.db
    .transaction(async (trx) => {
      const counts = { imported: 0, skipped: 0, failed: 0 };
      const problems: RowProblemRecord[] = [];
      for (const [i, read] of rows.entries()) {
        if (i % HEARTBEAT_ROWS === 0) deps.heartbeat?.();
        if (checkedProblems(deps, read).length > 0 || !read.body) continue;
        const refused = await raiseRow(trx, ref.organizationId, read.body);
        if (!refused) {
          counts.imported++;
          continue;
        }
        const skipped = refused.some((p) => p.code === 'external_account_id_in_use' && p.existingDebtId);
        counts[skipped ? 'skipped' : 'failed']++;
        problems.push(
          ...refused.map((p) => ({ ...p, row: read.row, outcome: skipped ? 'skipped' : 'failed' }) as const),
        );
      }
      await recordRowProblems(trx, ref.organizationId, ref.placementId, problems);
      const moved = await trx('placements')
        .where({ id: ref.placementId, organization_id: ref.organizationId, next_row: from.row, status: 'Importing' })
        .update({
          next_row: next.row,
          next_offset: next.offset,
          imported: trx.raw('imported + ?', [counts.imported]),
          skipped: trx.raw('skipped + ?', [counts.skipped]),
          failed: trx.raw('failed + ?', [counts.failed]),
          updated_at: trx.fn.now(3),
        });
      if (moved === 0) await trx.rollback(new ChunkTakenError());
      return true;
    })
    .catch((err: unknown) => {
      if (err instanceof ChunkTakenError) return false;
      throw err;
    });
  if (!committed) return { done: false, rows: 0, position };
  deps.heartbeat?.();
  return { done: ended, rows: rows.length, position: next.row };
}

class ChunkTakenError extends Error {
  constructor() {
    super('another attempt committed this chunk');
    this.name = 'ChunkTakenError';
  }
}

/**
 * Raises one row's debt under a savepoint, so a refusal the database finds (an unknown debtor, an account raised
 * meanwhile) undoes only that row; its problems, or undefined once raised.
 */
async function raiseRow(
  trx: Trx,
  organizationId: string,
  body: Record<string, unknown>,
): Promise<RowProblem[] | undefined> {
  await trx.raw('savepoint placement_row');
  try {
    await createDebt(trx, organizationId, body);
    await trx.raw('release savepoint placement_row');
    return undefined;
  } catch (err) {
    await trx.raw('rollback to savepoint placement_row');
    return asRowProblems(err);
  }
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
async function recordEnd(trx: Trx, row: PlacementRow): Promise<void> {
  const placement = toPlacement(row);
  if (row.status === 'Completed' || row.status === 'CompletedWithErrors') {
    await recordEvent(trx, row.organization_id, 'placement.completed', { placement });
  } else if (row.status === 'Failed') {
    await recordEvent(trx, row.organization_id, 'placement.failed', { placement });
  }
}
