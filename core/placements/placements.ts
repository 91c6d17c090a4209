/**
 * Placements as stored and as the API shows them (docs/placements.md): one row per uploaded file, its counts moved by
 * the `placement-<id>` workflow, and the problems of the rows it did not import. Every read is scoped to the
 * caller's organisation: another tenant's placement is not found.
 */
import type { Db, Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';
import type { PlacementFormat } from './row-reader';
import type { RowProblem } from './row-problems';

export const PLACEMENT_STATUSES = [
  'Validating',
  'Importing',
  'Completed',
  'CompletedWithErrors',
  'Failed',
  'Cancelled',
] as const;
export type PlacementStatus = (typeof PLACEMENT_STATUSES)[number];

const FINISHED: readonly PlacementStatus[] = ['Completed', 'CompletedWithErrors', 'Failed', 'Cancelled'];

export function isFinished(status: PlacementStatus): boolean {
  return FINISHED.includes(status);
}

/** The largest file taken: 50 MiB. */
export const MAX_PLACEMENT_BYTES = 50 * 1024 * 1024;

export interface PlacementRow {
  id: string;
  organization_id: string;
  status: PlacementStatus;
  validate_only: boolean;
  format: PlacementFormat;
  file_name: string;
  storage_key: string;
  size: string;
  sha256: string;
  columns: string[] | null;
  rows: number;
  imported: number;
  skipped: number;
  failed: number;
  next_row: number;
  next_offset: string;
  cancel_requested: boolean;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** When its stored file was deleted (core/placements/file-retention.ts); null while it is kept. */
  file_deleted_at: Date | null;
}

export interface Placement {
  id: string;
  status: PlacementStatus;
  validateOnly: boolean;
  fileName: string;
  format: PlacementFormat;
  /** Rows in the file (its header apart); 0 until validation has counted them. */
  rows: number;
  imported: number;
  skipped: number;
  failed: number;
  /** Why a `Failed` placement stopped; null otherwise. */
  failureReason: string | null;
  createdAt: string;
  completedAt: string | null;
}

export function toPlacement(row: PlacementRow): Placement {
  return {
    id: row.id,
    status: row.status,
    validateOnly: row.validate_only,
    fileName: row.file_name,
    format: row.format,
    rows: row.rows,
    imported: row.imported,
    skipped: row.skipped,
    failed: row.failed,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

export interface NewPlacement {
  id: string;
  format: PlacementFormat;
  fileName: string;
  validateOnly: boolean;
  /** A CSV's header as read at upload; null for NDJSON. */
  columns: string[] | null;
  stored: { key: string; sha256: string; size: number };
}

export async function insertPlacement(trx: Trx, organizationId: string, p: NewPlacement): Promise<Placement> {
  const [row] = await trx('placements')
    .insert({
      id: p.id,
      organization_id: organizationId,
      validate_only: p.validateOnly,
      format: p.format,
      file_name: p.fileName,
      storage_key: p.stored.key,
      size: p.stored.size,
      sha256: p.stored.sha256,
      columns: p.columns === null ? null : JSON.stringify(p.columns),
    })
    .returning<PlacementRow[]>('*');
  if (!row) throw new Error('insert into placements returned no row');
  return toPlacement(row);
}

export async function getPlacementRow(
  db: Db | Trx,
  organizationId: string,
  placementId: string,
): Promise<PlacementRow | undefined> {
  if (!isUuid(placementId)) return undefined;
  return db('placements').where({ organization_id: organizationId, id: placementId }).first<PlacementRow | undefined>();
}

export async function getPlacement(
  db: Db,
  organizationId: string,
  placementId: string,
): Promise<Placement | undefined> {
  const row = await getPlacementRow(db, organizationId, placementId);
  return row && toPlacement(row);
}

export function listPlacements(db: Db, organizationId: string, page: PageRequest): Promise<Page<Placement>> {
  return fetchPage<PlacementRow, Placement>(
    db('placements').where({ organization_id: organizationId }).select(PLACEMENT_COLUMNS),
    {
      list: 'placements',
      page,
      createdAtColumn: 'placements.created_at',
      idColumn: 'placements.id',
      position: (row) => ({ createdAt: row.created_at, id: row.id }),
    },
    toPlacement,
  );
}

/** Named, not `*`: the page's statement is prepared (core/platform/pagination.ts). */
const PLACEMENT_COLUMNS = [
  'id',
  'organization_id',
  'status',
  'validate_only',
  'format',
  'file_name',
  'rows',
  'imported',
  'skipped',
  'failed',
  'failure_reason',
  'created_at',
  'completed_at',
];

/**
 * Asks the placement's workflow to stop: it does so before its next chunk (what is committed stays imported). A
 * finished placement cannot be cancelled (`invalid_state`); cancelling twice is no error.
 */
export async function requestCancel(db: Db, organizationId: string, placementId: string): Promise<Placement> {
  const row = await getPlacementRow(db, organizationId, placementId);
  if (!row) throw errors.notFound('placement');
  if (isFinished(row.status)) {
    throw new ApiError('invalid_state', `The placement is ${row.status}: only a running one can be cancelled.`);
  }
  const [updated] = await db('placements')
    .where({ organization_id: organizationId, id: placementId })
    .whereIn('status', ['Validating', 'Importing'])
    .update({ cancel_requested: true, updated_at: db.fn.now(3) })
    .returning<PlacementRow[]>('*');
  // Finished meanwhile: answer what it is now.
  return toPlacement(updated ?? (await getPlacementRow(db, organizationId, placementId))!);
}

/** A row's problem as listed by `GET /v1/placements/{id}/errors`. */
export interface PlacementRowError {
  row: number;
  outcome: 'failed' | 'skipped';
  field: string | null;
  code: string;
  message: string;
  existingDebtId: string | null;
}

export interface RowProblemRecord extends RowProblem {
  row: number;
  outcome: 'failed' | 'skipped';
}

/** Records rows' problems; a retried activity's second copy of a row's problems is ignored (same key). */
export async function recordRowProblems(
  db: Db | Trx,
  organizationId: string,
  placementId: string,
  problems: RowProblemRecord[],
): Promise<void> {
  if (problems.length === 0) return;
  const seqs = new Map<number, number>();
  const rows = problems.map((p) => {
    const seq = seqs.get(p.row) ?? 0;
    seqs.set(p.row, seq + 1);
    return {
      placement_id: placementId,
      organization_id: organizationId,
      row_number: p.row,
      seq,
      outcome: p.outcome,
      field: p.field,
      code: p.code,
      message: p.message,
      existing_debt_id: p.existingDebtId ?? null,
    };
  });
  await db('placement_row_problems').insert(rows).onConflict(['placement_id', 'row_number', 'seq']).ignore();
}

interface ProblemRow {
  row_number: number;
  seq: number;
  outcome: 'failed' | 'skipped';
  field: string | null;
  code: string;
  message: string;
  existing_debt_id: string | null;
}

function errorsCursor(placementId: string, row: number, seq: number): string {
  return Buffer.from(JSON.stringify({ l: `placement-errors:${placementId}`, r: row, s: seq })).toString('base64url');
}

function decodeErrorsCursor(placementId: string, cursor: string): { row: number; seq: number } {
  try {
    const { l, r, s } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (l === `placement-errors:${placementId}` && Number.isInteger(r) && Number.isInteger(s)) {
      return { row: r as number, seq: s as number };
    }
  } catch {
    // answered below
  }
  throw errors.invalidRequest('The cursor is not valid for this list.', [
    { path: 'query.cursor', message: 'is not a cursor of this list' },
  ]);
}

/** The problems of a placement's rows in row order; undefined when the organisation has no such placement. */
export async function listRowErrors(
  db: Db,
  organizationId: string,
  placementId: string,
  page: PageRequest,
): Promise<Page<PlacementRowError> | undefined> {
  if (!(await getPlacementRow(db, organizationId, placementId))) return undefined;
  const after = page.cursor ? decodeErrorsCursor(placementId, page.cursor) : undefined;
  const query = db('placement_row_problems')
    .where({ organization_id: organizationId, placement_id: placementId })
    .select<ProblemRow[]>('row_number', 'seq', 'outcome', 'field', 'code', 'message', 'existing_debt_id')
    .orderBy([
      { column: 'row_number', order: 'asc' },
      { column: 'seq', order: 'asc' },
    ])
    .limit(page.limit + 1);
  if (after) void query.whereRaw('(row_number, seq) > (?, ?)', [after.row, after.seq]);
  const rows = await query;
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return {
    data: items.map((r) => ({
      row: r.row_number,
      outcome: r.outcome,
      field: r.field,
      code: r.code,
      message: r.message,
      existingDebtId: r.existing_debt_id,
    })),
    nextCursor: rows.length > page.limit && last ? errorsCursor(placementId, last.row_number, last.seq) : null,
  };
}
