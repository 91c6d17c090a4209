/**
 * Documents on debts (docs/documents.md): what a document is, and the reads (list, metadata, content). Tenancy is in
 * every function (the organisation id first; a foreign debt or document is simply not found). Uploads are
 * document-upload.ts; the sweep of objects no row names is orphan-sweep.ts.
 */
import type { Readable } from 'node:stream';
import { ApiError } from '../platform/errors';
import type { Db } from '../platform/db';
import { isUuid } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';
import type { DocumentContentType } from './content-type';
import { ObjectMissingError, type DocumentStore, type StoredObject } from './store';

export const DOCUMENT_KINDS = ['Agreement', 'Statement', 'Notice', 'Correspondence', 'Other'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** 10 MiB per file. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
export const MAX_DOCUMENTS_PER_DEBT = 50;
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 1000;

export interface DocumentRow {
  id: string;
  organization_id: string;
  debt_id: string;
  kind: DocumentKind;
  description: string | null;
  file_name: string;
  content_type: DocumentContentType;
  size: string | number;
  sha256: string;
  storage_key: string;
  created_at: Date;
}

export interface DebtDocument {
  id: string;
  debtId: string;
  kind: DocumentKind;
  description: string | null;
  fileName: string;
  contentType: DocumentContentType;
  size: number;
  sha256: string;
  createdAt: string;
}

export function toDocument(row: DocumentRow): DebtDocument {
  return {
    id: row.id,
    debtId: row.debt_id,
    kind: row.kind,
    description: row.description,
    fileName: row.file_name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: row.created_at.toISOString(),
  };
}

export interface DocumentDeps {
  db: Db;
  store: DocumentStore;
  /** Test hook: runs between storing the object and writing the row (a crash there is what the sweep is for). */
  afterStored?: (stored: StoredObject) => Promise<void>;
}

/**
 * A debt's documents, newest first, paged: what `GET /v1/debts/{id}/documents`, the console and the debtor portal
 * show. Undefined when the organisation has no such debt.
 */
export async function listDebtDocuments(
  db: Db,
  organizationId: string,
  debtId: string,
  page: PageRequest,
): Promise<Page<DebtDocument> | undefined> {
  if (!isUuid(debtId)) return undefined;
  const debt = await db('debts').where({ organization_id: organizationId, id: debtId }).first('id');
  if (!debt) return undefined;
  return fetchPage<DocumentRow, DebtDocument>(
    db('documents').where({ organization_id: organizationId, debt_id: debtId }).select('*'),
    {
      list: `documents:${debtId}`,
      page,
      createdAtColumn: 'documents.created_at',
      idColumn: 'documents.id',
      position: (row) => ({ createdAt: row.created_at, id: row.id }),
    },
    toDocument,
  );
}

export async function getDebtDocument(
  db: Db,
  organizationId: string,
  debtId: string,
  documentId: string,
): Promise<DocumentRow | undefined> {
  if (!isUuid(debtId) || !isUuid(documentId)) return undefined;
  return db('documents').where({ organization_id: organizationId, debt_id: debtId, id: documentId }).first();
}

/** The document's metadata and its bytes, streamed from the store; undefined when not found in this organisation. */
export async function openDebtDocument(
  deps: Pick<DocumentDeps, 'db' | 'store'>,
  organizationId: string,
  debtId: string,
  documentId: string,
): Promise<{ document: DebtDocument; content: Readable } | undefined> {
  const row = await getDebtDocument(deps.db, organizationId, debtId, documentId);
  if (!row) return undefined;
  const content = await deps.store.get(row.storage_key).catch((err: unknown) => {
    if (!(err instanceof ObjectMissingError)) throw err;
    throw new ApiError(
      'not_found',
      'The document’s content is missing from storage (it was removed outside the API); its metadata remains.',
    );
  });
  return { document: toDocument(row), content };
}
