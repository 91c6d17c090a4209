/**
 * Taking a placement file in, the same for the API (`POST /v1/placements`) and the console's Placements page: the file
 * streamed to the document store (never held whole) and its header checked there, so an unknown column is refused
 * before anything is recorded; then the `placement-<id>` workflow started and the placement's row written. The
 * workflow first, the row after: a run whose row never commits ends by itself, a row never waits alone.
 */
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingLimit, ObjectTooLargeError, type DocumentStore, type StoredObject } from '../documents/store';
import type { Db, Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { headerProblems } from './placement-columns';
import type { PlacementRuns } from './placement-runs';
import {
  getPlacementRow,
  insertPlacement,
  MAX_PLACEMENT_BYTES,
  toPlacement,
  type Placement,
  type PlacementRow,
} from './placements';
import { readHeader, type PlacementFormat } from './row-reader';

export const PLACEMENT_TOO_LARGE = `A placement file is at most ${MAX_PLACEMENT_BYTES} bytes (50 MiB).`;

/** The file's format from its name, else its declared type. */
export function placementFormatOf(fileName: string, mimeType: string): PlacementFormat {
  const name = fileName.toLowerCase();
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  if (mimeType === 'text/csv') return 'csv';
  if (['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines'].includes(mimeType)) return 'ndjson';
  throw new ApiError(
    'unsupported_media_type',
    'A placement file is CSV (text/csv, a .csv name) or JSON Lines (application/x-ndjson, a .ndjson or .jsonl name).',
  );
}

/** Hashes a file without keeping it (an idempotent replay: the first request stored it). */
export async function digestPlacementFile(file: Readable): Promise<{ sha256: string; size: number }> {
  const counter = new HashingLimit(MAX_PLACEMENT_BYTES);
  await pipeline(file, counter, new Writable({ write: (_chunk, _encoding, done) => done() })).catch((err: unknown) => {
    throw err instanceof ObjectTooLargeError ? new ApiError('payload_too_large', PLACEMENT_TOO_LARGE) : err;
  });
  return counter.result();
}

/** Streams the file into the organisation's store; `ready` as the store's (keep it only once the form is checked). */
export async function storePlacementFile(
  store: DocumentStore,
  organizationId: string,
  file: Readable,
  ready?: Promise<void>,
): Promise<StoredObject> {
  return store.put(organizationId, file, MAX_PLACEMENT_BYTES, ready ? { ready } : undefined).catch((err: unknown) => {
    throw err instanceof ObjectTooLargeError ? new ApiError('payload_too_large', PLACEMENT_TOO_LARGE) : err;
  });
}

/** The stored file's header checked: refused (400) when a column is no field of POST /v1/debts, or there is none. */
export async function checkedPlacementColumns(
  store: DocumentStore,
  stored: StoredObject,
  format: PlacementFormat,
): Promise<string[]> {
  const header = await readHeader(await store.get(stored.key), format).catch((err: unknown) => {
    throw errors.invalidRequest(`The file cannot be read: ${err instanceof Error ? err.message : String(err)}`, [
      { path: 'body.file', message: 'cannot be read' },
    ]);
  });
  if (header.length === 0) {
    throw errors.invalidRequest('The file has no rows.', [{ path: 'body.file', message: 'has no rows' }]);
  }
  const problems = headerProblems(header);
  if (problems.length > 0) {
    const detail = problems.map((p) => `column "${p.column}" ${p.message}`).join('; ');
    throw errors.invalidRequest(
      `The file’s columns are not those of POST /v1/debts: ${detail}. See /docs/placements for the columns.`,
      problems.map((p) => ({ path: `body.file.${p.column}`, message: p.message })),
    );
  }
  return header;
}

export function cleanPlacementFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return cleaned === '' ? 'placement' : cleaned.slice(0, 255);
}

/** A file stored and checked, ready to start. */
export interface AcceptedPlacementFile {
  stored: StoredObject;
  format: PlacementFormat;
  fileName: string;
  /** A CSV's header; null for NDJSON. */
  columns: string[] | null;
}

export interface StartPlacementDeps {
  db: Db;
  runs: PlacementRuns;
  /** Runs the row's insert in a transaction (the API's request transaction, or a plain one). */
  transaction: <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;
}

/**
 * Starts placement `id` of `file`: its workflow, then its row (kept as it is when it exists: a retry). `recordIn`
 * writes what goes with the new row in its transaction (the console's audit entry).
 */
export async function startPlacement(
  deps: StartPlacementDeps,
  organizationId: string,
  id: string,
  file: AcceptedPlacementFile,
  options: { validateOnly: boolean; recordIn?: (trx: Trx, placement: Placement) => Promise<void> },
): Promise<Placement> {
  await deps.runs.start(organizationId, id).catch((err: unknown) => {
    throw new ApiError('service_unavailable', 'The placement could not be started; retry the same request.', {
      cause: err instanceof Error ? err.message : String(err),
    });
  });
  const existing = await getPlacementRow(deps.db, organizationId, id);
  if (existing) return toPlacement(existing);
  return deps.transaction(async (trx) => {
    const placement = await insertPlacement(trx, organizationId, {
      id,
      format: file.format,
      fileName: file.fileName,
      validateOnly: options.validateOnly,
      columns: file.columns,
      stored: file.stored,
    });
    await options.recordIn?.(trx, placement);
    return placement;
  });
}

/**
 * The file of a finished dry run, to import it now (the console's "Import this file" after a check): the same stored
 * object, read again from its first row by a new placement. Only a dry run that finished is taken.
 */
export function checkedFileOf(row: PlacementRow): AcceptedPlacementFile {
  if (!row.validate_only || (row.status !== 'Completed' && row.status !== 'CompletedWithErrors')) {
    throw new ApiError('invalid_state', 'Only a finished check of a file can be imported from its page.');
  }
  return {
    stored: { key: row.storage_key, sha256: row.sha256, size: Number(row.size) },
    format: row.format,
    fileName: row.file_name,
    columns: row.columns,
  };
}
