/**
 * Placements (docs/placements.md): a file of accounts uploaded once and imported as debts by its `placement-<id>`
 * workflow. The upload reads and stores the file in `prepare`, outside any transaction (streamed to the document
 * store, never held whole), and checks its header there: unknown columns are refused before anything is recorded.
 * The handler then starts the workflow and writes the row (core/placements/placement-upload.ts, as the console does).
 * Its id comes from the request's update id, the same for every retry under one Idempotency-Key, so a retry after a
 * failure finds the same workflow and the same row.
 */
import { v5 as uuidv5 } from 'uuid';
import type { DocumentStore } from '../../core/documents/store';
import { errors } from '../../core/platform/errors';
import type { PlacementRuns } from '../../core/placements/placement-runs';
import {
  acceptedPlacementFile,
  cleanPlacementFileName,
  placementUploadOptions,
  startPlacement,
  type AcceptedPlacementFile,
} from '../../core/placements/placement-upload';
import { getPlacement, listPlacements, listRowErrors, requestCancel } from '../../core/placements/placements';
import { readMultipartUpload } from '../http/multipart-upload';
import {
  defineApiRoute,
  type ApiMutationInput,
  type ApiRouteInput,
  type ApiWorkflowInput,
  type RouteDefinition,
} from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  createPlacementQuery,
  listPlacementsQuery,
  placementErrorListExample,
  placementErrorListSchema,
  placementExample,
  placementListExample,
  placementListSchema,
  placementSchema,
  uploadPlacementBody,
  uploadPlacementEncoding,
} from '../schemas/placements';

/** What the upload's `prepare` hands the handler; a replay only hashes the file (the first request stored it). */
interface PreparedPlacement {
  digest: { sha256: string; size: number };
  fileName: string;
  /** The file stored and checked; absent on a replay. */
  file?: AcceptedPlacementFile;
}

/** Placement ids from update ids: the same for every retry of one request under its Idempotency-Key. */
const PLACEMENT_ID_NAMESPACE = '6f2a9a53-3c3e-4a51-9d0e-5b7c1f0e8d21';

export function placementRoutes(deps: { store: DocumentStore; runs: PlacementRuns }): RouteDefinition[] {
  const { store, runs } = deps;
  return [
    defineApiRoute<ApiWorkflowInput<undefined, { validateOnly: boolean }>>({
      method: 'post',
      path: '/v1/placements',
      operationId: 'createPlacement',
      summary: 'Upload a placement file',
      description:
        'Uploads a file of accounts to raise as debts, as `multipart/form-data` with one `file` part: a CSV with a ' +
        'header row, or JSON Lines, at most 50 MiB, streamed. Its columns are the fields of `POST /v1/debts` ' +
        '(metadata as `metadata.<key>`); an unknown column is refused before anything is recorded. Answers `202` ' +
        'at once: the placement is validated, then imported in chunks by its workflow; follow it with ' +
        '`GET /v1/placements/{id}` and its errors. Each row is raised exactly as `POST /v1/debts` raises a debt ' +
        '(its event, lifecycle and debtor mail included); a row whose `externalAccountId` has an open debt is ' +
        'skipped, so a file sent again raises nothing twice. `validateOnly=true` checks every row and imports ' +
        'nothing. Send an `Idempotency-Key` so a retry cannot start a second import. See /docs/placements.',
      tags: ['Placements'],
      scope: 'debts:write',
      query: createPlacementQuery,
      multipart: { schema: uploadPlacementBody, encoding: uploadPlacementEncoding },
      errors: ['service_unavailable'],
      errorCases: {
        invalid_request: 'Here also: a column of the file is not a field of POST /v1/debts, or the file has no rows.',
        payload_too_large: 'Here: the file is larger than 50 MiB.',
        unsupported_media_type: 'Here: the body is not multipart/form-data, or the file is neither CSV nor JSON Lines.',
      },
      responses: {
        202: {
          description: 'The placement, accepted: its workflow validates and imports it.',
          schema: placementSchema,
          example: { ...placementExample, status: 'Validating', rows: 0, imported: 0, skipped: 0, failed: 0 },
          headers: { Location: { description: 'The placement’s URL.', schema: { type: 'string' } } },
        },
      },
      drivesWorkflow: true,
      prepare: async (ctx, { auth }, { replay }): Promise<PreparedPlacement> => {
        const upload = await readMultipartUpload(
          ctx,
          placementUploadOptions({ organizationId: auth.organizationId, store, digestOnly: replay }),
        );
        const { digest, stored, format } = upload.consumed;
        const fileName = cleanPlacementFileName(upload.fileName);
        if (!stored) return { digest, fileName };
        return {
          digest,
          fileName,
          file: await acceptedPlacementFile(store, { fileName: upload.fileName, stored, format }),
        };
      },
      fingerprintBody: ({ prepared }) => {
        const upload = prepared as PreparedPlacement;
        const { sha256, size } = upload.digest;
        return JSON.stringify({ sha256, size, fileName: upload.fileName });
      },
      handler: async (_ctx, { db: pool, transaction, updateId, auth, query, prepared }) => {
        const upload = prepared as PreparedPlacement;
        if (!upload.file) throw new Error('a placement prepared as a replay reached the handler');
        const id = uuidv5(`${auth.organizationId}:${updateId}`, PLACEMENT_ID_NAMESPACE);
        const placement = await startPlacement({ db: pool, runs, transaction }, auth.organizationId, id, upload.file, {
          validateOnly: query.validateOnly,
        });
        return { status: 202, body: placement, headers: { Location: `/v1/placements/${placement.id}` } };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, PageQuery>>({
      method: 'get',
      path: '/v1/placements',
      operationId: 'listPlacements',
      summary: 'List placements',
      description: 'Your organisation’s placements, newest first.',
      tags: ['Placements'],
      scope: 'debts:read',
      query: listPlacementsQuery,
      responses: {
        200: { description: 'A page of placements.', schema: placementListSchema, example: placementListExample },
      },
      handler: async (_ctx, { db: pool, auth, query }) => ({
        status: 200,
        body: await listPlacements(pool, auth.organizationId, { limit: query.limit, cursor: query.cursor }),
      }),
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string }>>({
      method: 'get',
      path: '/v1/placements/{id}',
      operationId: 'getPlacement',
      summary: 'Get a placement',
      description: 'The placement’s status and counts, moved as its chunks commit.',
      tags: ['Placements'],
      scope: 'debts:read',
      params: idParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The placement.', schema: placementSchema, example: placementExample } },
      handler: async (_ctx, { db: pool, auth, params }) => {
        const placement = await getPlacement(pool, auth.organizationId, params.id);
        if (!placement) throw errors.notFound('placement');
        return { status: 200, body: placement };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, PageQuery, { id: string }>>({
      method: 'get',
      path: '/v1/placements/{id}/errors',
      operationId: 'listPlacementErrors',
      summary: 'List a placement’s row errors',
      description:
        'The rows not imported, in row order: each problem with its row number, column, and the code and words ' +
        '`POST /v1/debts` gives for that field; skipped rows name the open debt of their account.',
      tags: ['Placements'],
      scope: 'debts:read',
      params: idParams,
      query: listPlacementsQuery,
      errors: ['not_found'],
      responses: {
        200: {
          description: 'A page of row errors.',
          schema: placementErrorListSchema,
          example: placementErrorListExample,
        },
      },
      handler: async (_ctx, { db: pool, auth, params, query }) => {
        const page = await listRowErrors(pool, auth.organizationId, params.id, {
          limit: query.limit,
          cursor: query.cursor,
        });
        if (!page) throw errors.notFound('placement');
        return { status: 200, body: page };
      },
    }),
    defineApiRoute<ApiMutationInput<undefined, Record<string, never>, { id: string }>>({
      method: 'post',
      path: '/v1/placements/{id}/cancel',
      operationId: 'cancelPlacement',
      summary: 'Cancel a placement',
      description:
        'Stops the placement before its next chunk; what is imported stays. A finished placement is ' +
        '`invalid_state`; asking twice is no error. The placement ends `Cancelled` once its workflow stops.',
      tags: ['Placements'],
      scope: 'debts:write',
      params: idParams,
      errors: ['not_found', 'invalid_state'],
      responses: {
        200: {
          description: 'The placement, its cancel asked.',
          schema: placementSchema,
          example: placementExample,
        },
      },
      handler: async (_ctx, { trx, auth, params }) => ({
        status: 200,
        body: await requestCancel(trx, auth.organizationId, params.id),
      }),
    }),
  ];
}
