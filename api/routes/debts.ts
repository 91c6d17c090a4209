/** Debts: raise, list, read and amend (spec §4, DECISIONS.md §2). Rules live in core/; handlers shape answers. */
import { createDebt, createDebtPlainly, type CreateDebtInput } from '../../core/debts/debt-creation';
import type { Debt } from '../../core/debts/debts';
import type { DebtStatus } from '../../core/debts/debt-status';
import type { DebtPatch } from '../../core/debts/debt-updates';
import { amendDebt } from '../../core/lifecycle/amend-debt';
import type { DebtTriggers } from '../../core/lifecycle/triggers';
import { getDebt, listDebts } from '../../core/debts/debts';
import { errors } from '../../core/platform/errors';
import { numberSourceText } from '../../core/debts/json-numbers';
import { withPlainPath } from '../http/plain-execution';
import { rawBody } from '../http/middleware/json-body';
import {
  defineApiRoute,
  type ApiContext,
  type HandlerResult,
  type ApiMutationInput,
  type ApiWorkflowInput,
  type ApiRouteInput,
  type RouteDefinition,
} from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  createDebtBody,
  debtExample,
  debtListExample,
  debtListSchema,
  debtSchema,
  listDebtsQuery,
  patchDebtBody,
} from '../schemas/debts';

type ListQuery = PageQuery & {
  status?: DebtStatus;
  debtorId?: string;
  externalAccountId?: string;
  clientReference?: string;
  createdAfter?: string;
  createdBefore?: string;
  metadata?: Record<string, string>;
};

/** The principal as the client wrote it: JSON.parse has already turned a number into a binary double. */
function exactPrincipal(ctx: ApiContext, body: { originalPrincipal?: unknown }): unknown {
  const raw = rawBody(ctx.request);
  return numberSourceText(raw, 'originalPrincipal', body.originalPrincipal) ?? body.originalPrincipal;
}

function createDebtInput(ctx: ApiContext, body: CreateDebtInput): CreateDebtInput {
  return { ...body, originalPrincipal: exactPrincipal(ctx, body) };
}

function created(debt: Debt): HandlerResult {
  return { status: 201, body: debt, headers: { Location: `/v1/debts/${debt.id}` } };
}

/** `triggers` move a debt through its lifecycle: a recall is one (the debt's workflow owns its state). */
export function debtRoutes(triggers: DebtTriggers): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<undefined, ListQuery>>({
      method: 'get',
      path: '/v1/debts',
      operationId: 'listDebts',
      summary: 'List debts',
      description:
        'Your organisation’s debts, newest first, optionally filtered by `status`, `debtorId`, your ' +
        '`externalAccountId` or `clientReference` (exact match), `createdAfter` / `createdBefore`, and one ' +
        'metadata pair (`metadata[crmId]=C-88213`). Filters ' +
        'combine (all must match); each has an index in the list’s order, so pages stay fast at any size.',
      tags: ['Debts'],
      scope: 'debts:read',
      query: listDebtsQuery,
      responses: { 200: { description: 'A page of debts.', schema: debtListSchema, example: debtListExample } },
      handler: async (_ctx, { db, auth, query }) => {
        const { limit, cursor, createdAfter, createdBefore, ...filters } = query;
        const page = await listDebts(db, auth.organizationId, {
          page: { limit, cursor },
          ...filters,
          ...(createdAfter ? { createdAfter: new Date(createdAfter) } : {}),
          ...(createdBefore ? { createdBefore: new Date(createdBefore) } : {}),
        });
        return { status: 200, body: page };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string }>>({
      method: 'get',
      path: '/v1/debts/{id}',
      operationId: 'getDebt',
      summary: 'Get a debt',
      tags: ['Debts'],
      scope: 'debts:read',
      params: idParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The debt.', schema: debtSchema, example: debtExample } },
      handler: async (_ctx, { db, auth, params }) => {
        const debt = await getDebt(db, auth.organizationId, params.id);
        if (!debt) throw errors.notFound('debt');
        return { status: 200, body: debt };
      },
    }),
    withPlainPath(
      defineApiRoute<ApiMutationInput<CreateDebtInput>>({
        method: 'post',
        path: '/v1/debts',
        operationId: 'createDebt',
        summary: 'Raise a debt',
        description:
          'Raises a debt against an existing debtor (`debtorId`) or an inline one; an inline `debtorReferenceId` ' +
          'already in use reuses that debtor. The debt starts `PendingAssignment` and `debt.created` is emitted. ' +
          'An account has one open debt at a time: while one with the same `externalAccountId` is open, another is ' +
          '`409 external_account_id_in_use` (naming it in `existingDebtId`). ' +
          'Send an `Idempotency-Key` so that a retry cannot raise the debt twice.',
        tags: ['Debts'],
        scope: 'debts:write',
        body: createDebtBody,
        errors: [
          'missing_debtor',
          'debtor_not_found',
          'invalid_principal',
          'missing_external_account_id',
          'external_account_id_in_use',
        ],
        responses: {
          201: {
            description: 'The debt raised.',
            schema: debtSchema,
            example: debtExample,
            headers: { Location: { description: 'The new debt’s URL.', schema: { type: 'string' } } },
          },
        },
        handler: async (ctx, { trx, auth, body }) => {
          return created(await createDebt(trx, auth.organizationId, createDebtInput(ctx, body)));
        },
      }),
      // The usual case (an inline or existing debtor, a free account) on a plain transaction: the same statement.
      async (ctx, { tx, auth, body }) => {
        const input = createDebtInput(ctx, body as CreateDebtInput);
        const debt = await createDebtPlainly(tx, auth.organizationId, input);
        return debt && created(debt);
      },
    ),
    defineApiRoute<ApiWorkflowInput<DebtPatch, Record<string, never>, { id: string }>>({
      method: 'patch',
      path: '/v1/debts/{id}',
      operationId: 'updateDebt',
      summary: 'Amend or recall a debt',
      description:
        'Changes `externalAccountId`, `clientReference`, `metadata` (merged key by key), `originalPrincipal` (only ' +
        'while `PendingAssignment`) or ' +
        'recalls the debt with `status: "Closed"` from any open state: the recall is recorded by the debt’s ' +
        'lifecycle, which cancels a running plan and its timers, before this answers. Each change emits ' +
        '`debt.updated`; a request that changes nothing emits nothing.',
      tags: ['Debts'],
      scope: 'debts:write',
      params: idParams,
      body: patchDebtBody,
      errors: [
        'not_found',
        'invalid_principal',
        'missing_external_account_id',
        'external_account_id_in_use',
        'invalid_state',
        'service_unavailable',
      ],
      responses: {
        200: {
          description: 'The debt after the change.',
          schema: debtSchema,
          example: {
            ...debtExample,
            externalAccountId: 'ACCT-0001-B',
            originalPrincipal: 1300,
            outstandingPrincipal: 1300,
            updatedAt: '2026-11-22T09:15:00.000Z',
          },
        },
      },
      // A recall waits on the debt's workflow: no request transaction is held meanwhile.
      drivesWorkflow: true,
      handler: async (ctx, { db, transaction, updateId, auth, params, body }) => {
        const patch =
          body.originalPrincipal === undefined ? body : { ...body, originalPrincipal: exactPrincipal(ctx, body) };
        const access = { db, transaction };
        const debt = await amendDebt(access, triggers.forRequest(updateId), auth.organizationId, params.id, patch);
        if (!debt) throw errors.notFound('debt');
        return { status: 200, body: debt };
      },
    }),
  ];
}
