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
import type { MultipartOptions } from '../platform/multipart-upload';
import { PLACEMENT_FILE_RETENTION_DAYS } from './file-retention';
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

/** Why a finished placement's file cannot be read any more (its retention ended). */
export const PLACEMENT_FILE_GONE =
  `A placement’s file is kept ${PLACEMENT_FILE_RETENTION_DAYS} days after the placement finished; this one’s is ` +
  'deleted (its errors are kept).';

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

/** Room for the form's boundaries, headers and short fields around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** What reading an upload's file took in: its digest, the stored object (none when only hashed), its format. */
export interface ReceivedPlacementFile {
  digest: { sha256: string; size: number };
  stored?: StoredObject;
  format: PlacementFormat;
}

/** How a placement upload's form is read: the API's and the console's differ only in these. */
export interface PlacementUploadForm {
  organizationId: string;
  store: DocumentStore;
  /** The form's text fields besides the file, each checked as it arrives (the console's CSRF token). */
  fields?: readonly string[];
  checkField?: (name: string, value: string) => void;
  /** Checked when the file part begins, before a byte of it is kept; throwing refuses it unread. */
  beforeFile?: () => void;
  /** Only hash the file, keeping nothing (an idempotent replay: the first request stored it). */
  digestOnly?: boolean;
}

/**
 * The multipart reader's options for a placement upload (the API's `POST /v1/placements` and the console's form): one
 * `file` part of at most 50 MiB, its format found from its name or type before any byte is kept (another type is
 * refused unread, `415`), then streamed to the organisation's store, kept once the whole form is accepted.
 */
export function placementUploadOptions(form: PlacementUploadForm): MultipartOptions<ReceivedPlacementFile> {
  return {
    fileField: 'file',
    fields: form.fields ?? [],
    checkField: form.checkField ?? (() => undefined),
    maxFieldBytes: 1024,
    maxBodyBytes: MAX_PLACEMENT_BYTES + MULTIPART_OVERHEAD,
    what: 'a placement file',
    tooLargeDetail: PLACEMENT_TOO_LARGE,
    consume: async (file, formChecked, info) => {
      let format: PlacementFormat;
      try {
        form.beforeFile?.();
        format = placementFormatOf(info.fileName, info.mimeType);
      } catch (err) {
        // Refused unread: drained, so the request ends and the refusal is answered.
        file.on('error', () => undefined).resume();
        throw err;
      }
      if (form.digestOnly) return { digest: await digestPlacementFile(file), format };
      const stored = await storePlacementFile(form.store, form.organizationId, file, formChecked);
      return { digest: stored, stored, format };
    },
  };
}

/** A stored upload checked: its columns (refused, 400, when one is no field of a debt) and its name cleaned. */
export async function acceptedPlacementFile(
  store: DocumentStore,
  upload: { fileName: string; stored: StoredObject; format: PlacementFormat },
): Promise<AcceptedPlacementFile> {
  const columns = await checkedPlacementColumns(store, upload.stored, upload.format);
  return {
    stored: upload.stored,
    format: upload.format,
    fileName: cleanPlacementFileName(upload.fileName),
    columns: upload.format === 'csv' ? columns : null,
  };
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
  if (row.file_deleted_at) {
    throw new ApiError('invalid_state', `${PLACEMENT_FILE_GONE} Upload the file again to import it.`);
  }
  return {
    stored: { key: row.storage_key, sha256: row.sha256, size: Number(row.size) },
    format: row.format,
    fileName: row.file_name,
    columns: row.columns,
  };
}
