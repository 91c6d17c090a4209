/**
 * A debt's documents (docs/documents.md): upload (multipart, streamed to the store), list, metadata and content.
 * The upload reads its body in `prepare`, outside the request's transaction, so a slow upload never holds a database
 * connection; the handler then writes the row in the transaction (with the Idempotency-Key record, if any). A replay
 * (the key's response already saved) only hashes the file for the fingerprint: nothing is stored again.
 */
import {
  DOCUMENT_KINDS,
  getDebtDocument,
  listDebtDocuments,
  MAX_DESCRIPTION_LENGTH,
  MAX_DOCUMENT_BYTES,
  openDebtDocument,
  toDocument,
  type DocumentKind,
} from '../../core/documents/documents';
import {
  checkDebtTakesDocuments,
  digestDocument,
  recordDocument,
  storeDocumentObject,
  type FileDigest,
  type StoredDocument,
} from '../../core/documents/document-upload';
import { documentDownloadHeaders } from '../../core/documents/download-headers';
import { DOCUMENT_CONTENT_TYPES } from '../../core/documents/content-type';
import type { DocumentStore } from '../../core/documents/store';
import type { Db } from '../../core/platform/db';
import { errors } from '../../core/platform/errors';
import { readMultipartUpload } from '../http/multipart-upload';
import {
  defineApiRoute,
  type ApiMutationInput,
  type ApiRouteInput,
  type RouteDefinition,
} from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  documentContentSchema,
  documentExample,
  documentListExample,
  documentListSchema,
  documentParams,
  documentSchema,
  listDocumentsQuery,
  uploadDocumentBody,
  uploadDocumentEncoding,
} from '../schemas/documents';

/**
 * What the upload's `prepare` hands its handler: the file's digest (for the Idempotency-Key's fingerprint), the
 * stored object (none for a replay, which stores nothing) and the form's fields.
 */
interface PreparedUpload {
  digest: FileDigest;
  object?: StoredDocument;
  fileName: string;
  kind: DocumentKind;
  description: string | null;
}

/** Room for the multipart framing and the text fields around a 10 MiB file. */
const MULTIPART_OVERHEAD = 64 * 1024;

function isKind(value: string): value is DocumentKind {
  return (DOCUMENT_KINDS as readonly string[]).includes(value);
}

function checkField(name: string, value: string): void {
  // As for JSON bodies (api/http/validation.ts): PostgreSQL text cannot hold a NUL character.
  if (value.includes('\u0000')) {
    const message = 'must not contain a NUL character';
    throw errors.invalidRequest(`${name} ${message}.`, [{ path: `body.${name}`, message }]);
  }
  if (name === 'kind' && !isKind(value)) {
    const message = `must be one of ${DOCUMENT_KINDS.join(', ')}`;
    throw errors.invalidRequest(`kind ${message}.`, [{ path: 'body.kind', message }]);
  }
  if (name === 'description' && [...value].length > MAX_DESCRIPTION_LENGTH) {
    const message = `must be at most ${MAX_DESCRIPTION_LENGTH} characters`;
    throw errors.invalidRequest(`description ${message}.`, [{ path: 'body.description', message }]);
  }
}

/** Control characters and path separators dropped: the name is shown back, never used as a path. */
function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return cleaned === '' ? 'document' : cleaned;
}

export function documentRoutes(deps: { db: Db; store: DocumentStore }): RouteDefinition[] {
  const { db, store } = deps;
  return [
    defineApiRoute<ApiMutationInput<undefined, Record<string, never>, { id: string }>>({
      method: 'post',
      path: '/v1/debts/{id}/documents',
      operationId: 'uploadDebtDocument',
      summary: 'Attach a document to a debt',
      description:
        'Uploads one file as `multipart/form-data` (a `file` part, optional `kind` and `description` fields): a PDF, ' +
        'PNG or JPEG recognised by its bytes, at most 10 MiB, at most 50 per debt. A debt in any state, a terminal ' +
        'one included, takes documents. With an `Idempotency-Key`, a retry of the same file and fields replays the ' +
        'first answer without storing the file again. Send `kind` and `description` before `file`: fields after ' +
        'it are checked only once the whole file has arrived. See /docs/documents.',
      tags: ['Debts'],
      scope: 'debts:documents:write',
      params: idParams,
      multipart: { schema: uploadDocumentBody, encoding: uploadDocumentEncoding },
      errors: ['not_found', 'document_limit_reached'],
      errorCases: {
        payload_too_large: 'Here: the file is larger than 10 MiB.',
        unsupported_media_type: 'Here: the body is not multipart/form-data, or the file is not a PDF, PNG or JPEG.',
      },
      responses: {
        201: {
          description: 'The document stored.',
          schema: documentSchema,
          example: documentExample,
          headers: { Location: { description: 'The new document’s URL.', schema: { type: 'string' } } },
        },
      },
      prepare: async (ctx, { params, auth }, { replay }): Promise<PreparedUpload> => {
        // A replay is answered from the saved response whatever the debt holds now (its 50th document included).
        if (!replay) await checkDebtTakesDocuments(db, auth.organizationId, params.id);
        const upload = await readMultipartUpload<{ digest: FileDigest; object?: StoredDocument }>(ctx, {
          fileField: 'file',
          fields: ['kind', 'description'],
          checkField,
          maxFieldBytes: MAX_DESCRIPTION_LENGTH * 4,
          maxBodyBytes: MAX_DOCUMENT_BYTES + MULTIPART_OVERHEAD,
          // A replay's file is only hashed, for the fingerprint: the first request stored it.
          consume: async (file, formChecked) => {
            if (replay) return { digest: await digestDocument(file) };
            const object = await storeDocumentObject(store, auth.organizationId, file, { ready: formChecked });
            return { digest: object.stored, object };
          },
        });
        const kind = upload.fields.kind ?? 'Other';
        return {
          ...upload.consumed,
          fileName: cleanFileName(upload.fileName),
          kind: isKind(kind) ? kind : 'Other',
          description: upload.fields.description ?? null,
        };
      },
      fingerprintBody: ({ prepared }) => {
        const upload = prepared as PreparedUpload;
        const { sha256, size } = upload.digest;
        return JSON.stringify({ sha256, size, fileName: upload.fileName, kind: upload.kind, d: upload.description });
      },
      handler: async (_ctx, { trx, auth, params, prepared }) => {
        const upload = prepared as PreparedUpload;
        // The executor runs the handler only when it did not see a saved response before `prepare`.
        if (!upload.object) throw new Error('an upload prepared as a replay reached the handler');
        const document = await recordDocument(trx, auth.organizationId, params.id, upload.object, upload);
        return {
          status: 201,
          body: document,
          headers: { Location: `/v1/debts/${document.debtId}/documents/${document.id}` },
        };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, PageQuery, { id: string }>>({
      method: 'get',
      path: '/v1/debts/{id}/documents',
      operationId: 'listDebtDocuments',
      summary: 'List a debt’s documents',
      description: 'The debt’s documents, newest first.',
      tags: ['Debts'],
      scope: 'debts:read',
      params: idParams,
      query: listDocumentsQuery,
      errors: ['not_found'],
      responses: {
        200: { description: 'A page of documents.', schema: documentListSchema, example: documentListExample },
      },
      handler: async (_ctx, { db: pool, auth, params, query }) => {
        const page = await listDebtDocuments(pool, auth.organizationId, params.id, {
          limit: query.limit,
          cursor: query.cursor,
        });
        if (!page) throw errors.notFound('debt');
        return { status: 200, body: page };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string; documentId: string }>>({
      method: 'get',
      path: '/v1/debts/{id}/documents/{documentId}',
      operationId: 'getDebtDocument',
      summary: 'Get a document’s metadata',
      tags: ['Debts'],
      scope: 'debts:read',
      params: documentParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The document.', schema: documentSchema, example: documentExample } },
      handler: async (_ctx, { db: pool, auth, params }) => {
        const row = await getDebtDocument(pool, auth.organizationId, params.id, params.documentId);
        if (!row) throw errors.notFound('document');
        return { status: 200, body: toDocument(row) };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string; documentId: string }>>({
      method: 'get',
      path: '/v1/debts/{id}/documents/{documentId}/content',
      operationId: 'getDebtDocumentContent',
      summary: 'Download a document',
      description:
        'The stored bytes, streamed, as an attachment (`Content-Disposition: attachment`, ' +
        '`X-Content-Type-Options: nosniff`) of the recognised type: never shown inline. Compare them with `sha256`.',
      tags: ['Debts'],
      scope: 'debts:read',
      params: documentParams,
      errors: ['not_found'],
      errorCases: { not_found: 'Also when the document’s bytes are missing from storage.' },
      responses: {
        200: {
          description: 'The document’s bytes.',
          schema: documentContentSchema,
          contentTypes: [...DOCUMENT_CONTENT_TYPES],
          headers: {
            'Content-Disposition': {
              description: '`attachment`, with the uploaded file name (`filename*` exact, `filename` in ASCII).',
              schema: { type: 'string' },
            },
            'X-Content-Type-Options': { description: 'Always `nosniff`.', schema: { type: 'string' } },
          },
        },
      },
      handler: async (_ctx, { db: pool, auth, params }) => {
        const opened = await openDebtDocument({ db: pool, store }, auth.organizationId, params.id, params.documentId);
        if (!opened) throw errors.notFound('document');
        const { document, content } = opened;
        return {
          status: 200,
          body: content,
          contentType: document.contentType,
          headers: documentDownloadHeaders(document),
        };
      },
    }),
  ];
}
