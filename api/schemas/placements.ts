/** JSON Schemas and examples of placements (docs/placements.md); they validate requests and build /openapi/v1.json. */
import { MAX_PLACEMENT_BYTES, PLACEMENT_STATUSES } from '../../core/placements/placements';
import type { JsonSchema } from '../http/route-definition';
import { EXAMPLE_CURSOR, pagedListSchema, pageQueryProperties, timestampSchema, uuidSchema } from './common';

const count = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description });

export const placementSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'status',
    'validateOnly',
    'fileName',
    'format',
    'rows',
    'imported',
    'skipped',
    'failed',
    'failureReason',
    'createdAt',
    'completedAt',
  ],
  properties: {
    id: uuidSchema,
    status: {
      type: 'string',
      enum: [...PLACEMENT_STATUSES],
      description:
        '`Validating`: every row is being checked. `Importing`: rows are being raised as debts, a chunk at a time. ' +
        '`Completed`: every row imported or skipped. `CompletedWithErrors`: some rows failed (see the errors). ' +
        '`Failed`: the file could not be read on (`failureReason`). `Cancelled`: stopped on request; what was ' +
        'imported stays. A dry run (`validateOnly`) ends `Completed` or `CompletedWithErrors` after validation.',
    },
    validateOnly: { type: 'boolean', description: 'A dry run: every row checked, nothing imported.' },
    fileName: { type: 'string', description: 'The name the file was uploaded under (metadata only).' },
    format: { type: 'string', enum: ['csv', 'ndjson'] },
    rows: count('Rows in the file, its header apart; 0 until validation has counted them.'),
    imported: count('Rows raised as debts.'),
    skipped: count('Rows whose `externalAccountId` already had an open debt (named in the errors).'),
    failed: count('Rows refused, by validation or when raised (see the errors).'),
    failureReason: { type: ['string', 'null'], description: 'Why a `Failed` placement stopped; else null.' },
    createdAt: timestampSchema,
    completedAt: { ...timestampSchema, type: ['string', 'null'], description: 'When it finished; null until then.' },
  },
};

export const placementExample = {
  id: '01937b10-4c2d-7e8f-9a0b-1c2d3e4f5a6b',
  status: 'Importing',
  validateOnly: false,
  fileName: 'placement-2026-12-06.csv',
  format: 'csv',
  rows: 12000,
  imported: 4500,
  skipped: 12,
  failed: 3,
  failureReason: null,
  createdAt: '2026-12-06T09:00:00.000Z',
  completedAt: null,
};

export const placementListSchema = pagedListSchema(placementSchema);
export const placementListExample = { data: [placementExample], nextCursor: EXAMPLE_CURSOR };

export const placementErrorSchema: JsonSchema = {
  type: 'object',
  required: ['row', 'outcome', 'field', 'code', 'message', 'existingDebtId'],
  properties: {
    row: {
      type: 'integer',
      minimum: 1,
      description:
        'The row as a spreadsheet numbers it: a CSV’s header is row 1; an NDJSON file’s first line is row 1.',
    },
    outcome: {
      type: 'string',
      enum: ['failed', 'skipped'],
      description: '`skipped`: the account already had an open debt (`existingDebtId`); `failed`: the row was refused.',
    },
    field: {
      type: ['string', 'null'],
      description: 'The column (`metadata.<key>` for metadata); null when the problem is the row as a whole.',
    },
    code: {
      type: 'string',
      description: 'The code `POST /v1/debts` answers for this problem (see /docs/errors), e.g. `invalid_principal`.',
    },
    message: { type: 'string', description: 'In the words `POST /v1/debts` uses for this field.' },
    existingDebtId: { ...uuidSchema, type: ['string', 'null'], description: 'The open debt of a skipped row.' },
  },
};

export const placementErrorExample = {
  row: 7,
  outcome: 'failed',
  field: 'originalPrincipal',
  code: 'invalid_principal',
  message: 'The principal must be a positive amount in the currency’s precision.',
  existingDebtId: null,
};

export const placementErrorListSchema = pagedListSchema(placementErrorSchema);
export const placementErrorListExample = { data: [placementErrorExample], nextCursor: null };

export const listPlacementsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pageQueryProperties },
};

export const createPlacementQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    validateOnly: {
      type: 'boolean',
      default: false,
      description: 'A dry run: check every row and import nothing.',
    },
  },
};

/** The multipart body: exactly what the handler reads (api/http/multipart-upload.ts). */
export const uploadPlacementBody: JsonSchema = {
  type: 'object',
  required: ['file'],
  additionalProperties: false,
  properties: {
    file: {
      type: 'string',
      contentMediaType: 'text/csv',
      description:
        `The placement file, as a part with a filename, at most ${MAX_PLACEMENT_BYTES} bytes (50 MiB): a CSV with a ` +
        'header row (`text/csv`, or a `.csv` name) or JSON Lines (`application/x-ndjson`, or a `.ndjson` or ' +
        '`.jsonl` name). Columns are the fields of `POST /v1/debts`, metadata as `metadata.<key>`; see /docs/placements.',
    },
  },
};

export const uploadPlacementEncoding = { file: { contentType: 'text/csv, application/x-ndjson' } };
