/**
 * Uploading a document to a debt. The object is stored first and the row written after, in a transaction that locks
 * the debt so the per-debt limit holds under concurrent uploads; a crash in between leaves an object without a row,
 * which no read can reach and the retention sweep deletes (orphan-sweep.ts).
 */
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../platform/errors';
import type { Db, Trx } from '../platform/db';
import { isUuid, newId } from '../platform/ids';
import { queryNamed } from '../platform/prepared';
import { TypeSniffer, UnsupportedDocumentTypeError, type DocumentContentType } from './content-type';
import {
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENTS_PER_DEBT,
  MAX_FILE_NAME_LENGTH,
  toDocument,
  type DebtDocument,
  type DocumentDeps,
  type DocumentKind,
  type DocumentRow,
} from './documents';
import { HashingLimit, ObjectTooLargeError, type DocumentStore, type PutOptions, type StoredObject } from './store';

export interface NewDocument {
  body: Readable;
  fileName: string;
  kind?: DocumentKind;
  description?: string | null;
}

const tooMany = () =>
  new ApiError('document_limit_reached', `A debt holds at most ${MAX_DOCUMENTS_PER_DEBT} documents; this one is full.`);

/** A file's bytes in the store, recognised and counted, whose row is not written yet. */
export interface StoredDocument {
  stored: StoredObject;
  contentType: DocumentContentType;
}

/**
 * Refuses before reading a byte when the organisation has no such debt (404) or the debt is full (409); the
 * upload route calls it before it opens the request body.
 */
export async function checkDebtTakesDocuments(db: Db, organizationId: string, debtId: string): Promise<void> {
  const count = await countDocuments(db, organizationId, debtId);
  if (count === undefined) throw new ApiError('not_found', 'The debt was not found.');
  if (count >= MAX_DOCUMENTS_PER_DEBT) throw tooMany();
}

/**
 * Streams a file into the store: its type recognised from its first bytes (415 otherwise), refused past 10 MiB
 * (413), hashed as it goes. Nothing is kept under a real name when it is refused, or when `options.ready` is
 * rejected (the upload's form refused after the file).
 */
export async function storeDocumentObject(
  store: DocumentStore,
  organizationId: string,
  body: Readable,
  options: PutOptions = {},
): Promise<StoredDocument> {
  // The type is checked by the store as the bytes reach it: no stream stage of its own between the body and the file.
  const sniffer = new TypeSniffer();
  let stored: StoredObject;
  try {
    stored = await store.put(organizationId, body, MAX_DOCUMENT_BYTES, { ...options, check: sniffer });
  } catch (err) {
    // The store has dropped what it received once its put settles: only then is the refusal answered.
    throw documentError(err);
  }
  const contentType = sniffer.type;
  if (!contentType) throw new Error('stored a document whose type was never recognised');
  return { stored, contentType };
}

/** A file's SHA-256 (hex) and size, what an upload's Idempotency-Key fingerprints. */
export interface FileDigest {
  sha256: string;
  size: number;
}

/**
 * Reads a file to its end, only hashing and counting it (past 10 MiB, 413): for a replayed upload, whose first
 * request stored the file, to be matched against its fingerprint without storing it again.
 */
export async function digestDocument(body: Readable): Promise<FileDigest> {
  const counter = new HashingLimit(MAX_DOCUMENT_BYTES);
  try {
    await pipeline(body, counter, new Writable({ write: (_chunk, _encoding, done) => done() }));
  } catch (err) {
    throw documentError(err);
  }
  return counter.result();
}

/**
 * Writes the row of a stored object, in the caller's transaction. The debt is locked so the per-debt limit holds
 * under concurrent uploads; a refusal here leaves the object to the orphan sweep (never deleted here: the local
 * store shares one file between equal uploads).
 */
export async function recordDocument(
  trx: Trx,
  organizationId: string,
  debtId: string,
  object: StoredDocument,
  meta: Omit<NewDocument, 'body'>,
): Promise<DebtDocument> {
  // Named statements (core/platform/prepared.ts): parsed and planned once per connection, beneath knex's builder.
  const locked = await queryNamed<{ id: string }>(trx, LOCK_DEBT_SQL, [organizationId, debtId]);
  if (locked.length === 0) throw new ApiError('not_found', 'The debt was not found.');
  // The count is a statement of its own after the lock: it sees every document committed by an upload that held it.
  const [row] = await queryNamed<DocumentRow>(trx, INSERT_DOCUMENT_SQL, [
    newId(),
    organizationId,
    debtId,
    meta.kind ?? 'Other',
    meta.description ?? null,
    meta.fileName.slice(0, MAX_FILE_NAME_LENGTH),
    object.contentType,
    object.stored.size,
    object.stored.sha256,
    object.stored.key,
    MAX_DOCUMENTS_PER_DEBT,
  ]);
  if (!row) throw tooMany();
  return toDocument(row);
}

const LOCK_DEBT_SQL = 'select id from debts where organization_id = $1 and id = $2 for update';

/** The row, written only while the debt holds fewer than $11 documents; no row returned when it is full. */
const INSERT_DOCUMENT_SQL = `insert into documents
  (id, organization_id, debt_id, kind, description, file_name, content_type, size, sha256, storage_key)
  select $1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::text
  where (select count(*) from documents where organization_id = $2::uuid and debt_id = $3::uuid) < $11::int
  returning *`;

/**
 * Streams the file into the store (type recognised from its first bytes, refused past 10 MiB with 413), then writes
 * its row. A debt in any state, terminal ones included, takes documents.
 */
export async function uploadDocument(
  deps: DocumentDeps,
  organizationId: string,
  debtId: string,
  doc: NewDocument,
): Promise<DebtDocument> {
  await checkDebtTakesDocuments(deps.db, organizationId, debtId);
  const object = await storeDocumentObject(deps.store, organizationId, doc.body);
  await deps.afterStored?.(object.stored);
  return deps.db.transaction((trx) => recordDocument(trx, organizationId, debtId, object, doc));
}

function documentError(err: unknown): unknown {
  if (err instanceof ObjectTooLargeError)
    return new ApiError('payload_too_large', `A document is at most ${MAX_DOCUMENT_BYTES} bytes (10 MiB).`);
  if (err instanceof UnsupportedDocumentTypeError)
    return new ApiError('unsupported_media_type', 'A document must be a PDF, PNG or JPEG file (checked by content).');
  return err;
}

/** The number of documents on a debt of this organisation, or undefined when it has no such debt. */
async function countDocuments(db: Db, organizationId: string, debtId: string): Promise<number | undefined> {
  if (!isUuid(debtId)) return undefined;
  const [first] = await queryNamed<{ debt: string | null; n: string }>(db, COUNT_DOCUMENTS_SQL, [
    organizationId,
    debtId,
  ]);
  return first?.debt ? Number(first.n) : undefined;
}

const COUNT_DOCUMENTS_SQL = `select (select id from debts where organization_id = $1 and id = $2) as debt,
  (select count(*) from documents where organization_id = $1 and debt_id = $2) as n`;
