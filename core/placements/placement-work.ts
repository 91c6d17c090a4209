/**
 * What every step of a placement's import shares (placement-validation.ts, chunk-import.ts, placement-end.ts): its
 * dependencies, its reference (ids only, as the workflow passes it), its row as it is now, its stored file read from a
 * row on, and a row's problems. A placement whose row is gone (a sandbox reset wiped it) is `PlacementMissingError`;
 * a file gone from the store under a live row is a `PlacementFileError`, which fails the placement.
 */
import type { Readable } from 'node:stream';
import { ObjectMissingError, type DocumentStore } from '../documents/store';
import type { Db, Trx } from '../platform/db';
import { getPlacementRow, type PlacementRow, type PlacementStatus } from './placements';
import { PlacementFileError, readRows, type ReadRow, type RowPosition } from './row-reader';
import type { RowProblem } from './row-problems';

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

/** The placement has no row: not committed yet (the API starts the workflow just before), or deleted since. */
export class PlacementMissingError extends Error {
  constructor(placementId: string) {
    super(`placement ${placementId} has no row`);
    this.name = 'PlacementMissingError';
  }
}

export async function loadRow(db: Db | Trx, ref: PlacementRef): Promise<PlacementRow> {
  const row = await getPlacementRow(db, ref.organizationId, ref.placementId);
  if (!row) throw new PlacementMissingError(ref.placementId);
  return row;
}

/** The status the workflow starts from (the row must exist: see `PlacementMissingError`). */
export async function placementStatus(db: Db, ref: PlacementRef): Promise<PlacementStatus> {
  return (await loadRow(db, ref)).status;
}

/** The file's rows from `from` on; its object missing is the placement gone (no row) or its file gone (a row). */
export async function openRows(
  deps: PlacementWorkDeps,
  row: PlacementRow,
  from: RowPosition,
): Promise<AsyncGenerator<ReadRow>> {
  const stream: Readable = await deps.store.get(row.storage_key, { start: from.offset }).catch(async (err: unknown) => {
    if (!(err instanceof ObjectMissingError)) throw err;
    await loadRow(deps.db, { organizationId: row.organization_id, placementId: row.id });
    throw new PlacementFileError('The placement’s file is no longer stored.');
  });
  return readRows(stream, row.format, from, row.columns ?? []);
}

export function checkedProblems(deps: PlacementWorkDeps, read: ReadRow): RowProblem[] {
  return read.problems ?? (read.body ? deps.checkRow(read.body) : []);
}
