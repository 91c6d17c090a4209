/** JSON Schemas and examples of a debt's documents (docs/documents.md); they validate and build /openapi/v1.json. */
import { DOCUMENT_CONTENT_TYPES } from '../../core/documents/content-type';
import {
  DOCUMENT_KINDS,
  MAX_DESCRIPTION_LENGTH,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENTS_PER_DEBT,
  MAX_FILE_NAME_LENGTH,
} from '../../core/documents/documents';
import type { JsonSchema } from '../http/route-definition';
import { EXAMPLE_CURSOR, pagedListSchema, pageQueryProperties, timestampSchema, uuidSchema } from './common';

export const documentSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'debtId', 'kind', 'description', 'fileName', 'contentType', 'size', 'sha256', 'createdAt'],
  properties: {
    id: uuidSchema,
    debtId: uuidSchema,
    kind: { type: 'string', enum: [...DOCUMENT_KINDS] },
    description: { type: ['string', 'null'] },
    fileName: {
      type: 'string',
      maxLength: MAX_FILE_NAME_LENGTH,
      description: 'The name the file was uploaded under, kept as metadata only (never a path).',
    },
    contentType: {
      type: 'string',
      enum: [...DOCUMENT_CONTENT_TYPES],
      description: 'Recognised from the file’s first bytes, not from its name or the declared type.',
    },
    size: { type: 'integer', minimum: 1, maximum: MAX_DOCUMENT_BYTES, description: 'Bytes.' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the stored bytes.' },
    createdAt: timestampSchema,
  },
};

export const documentExample = {
  id: '01937a4c-2b1d-7f3e-9c8a-5d6e7f8a9b0c',
  debtId: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  kind: 'Agreement',
  description: 'Signed credit agreement',
  fileName: 'agreement-ACCT-0001.pdf',
  contentType: 'application/pdf',
  size: 48213,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  createdAt: '2026-11-24T10:00:00.000Z',
};

export const documentListSchema = pagedListSchema(documentSchema);
export const documentListExample = { data: [documentExample], nextCursor: EXAMPLE_CURSOR };

/** The multipart body of an upload: exactly what the handler reads (api/http/multipart-upload.ts). */
export const uploadDocumentBody: JsonSchema = {
  type: 'object',
  required: ['file'],
  additionalProperties: false,
  properties: {
    file: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description:
        `The file, as a part with a filename: a PDF, PNG or JPEG (recognised by its bytes), at most ` +
        `${MAX_DOCUMENT_BYTES} bytes (10 MiB). A debt holds at most ${MAX_DOCUMENTS_PER_DEBT} documents.`,
    },
    kind: { type: 'string', enum: [...DOCUMENT_KINDS], default: 'Other' },
    description: { type: 'string', maxLength: MAX_DESCRIPTION_LENGTH },
  },
};

export const uploadDocumentEncoding = {
  file: { contentType: DOCUMENT_CONTENT_TYPES.join(', ') },
};

export const listDocumentsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pageQueryProperties },
};

/** Path `{id}` (the debt) and `{documentId}`: any string, so a malformed id is simply not found. */
export const documentParams: JsonSchema = {
  type: 'object',
  required: ['id', 'documentId'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'The debt id (a UUID).' },
    documentId: { type: 'string', description: 'The document id (a UUID).' },
  },
};

/** The bytes of a document: one of the three types. */
export const documentContentSchema: JsonSchema = { type: 'string', contentEncoding: 'binary' };
