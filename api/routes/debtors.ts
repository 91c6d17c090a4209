/** Debtors: list, read, create and amend (DECISIONS.md §2). */
import { createDebtor, getDebtor, listDebtors, type NewDebtor } from '../../core/debts/debtors';
import { updateDebtor, type DebtorPatch } from '../../core/debts/debtor-updates';
import { errors } from '../../core/platform/errors';
import {
  defineApiRoute,
  type ApiMutationInput,
  type ApiRouteInput,
  type RouteDefinition,
} from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  createDebtorBody,
  debtorExample,
  debtorListExample,
  debtorListSchema,
  debtorSchema,
  listDebtorsQuery,
  patchDebtorBody,
} from '../schemas/debtors';

type ListQuery = PageQuery & { referenceId?: string; email?: string; metadata?: Record<string, string> };
type IdParams = { id: string };

export function debtorRoutes(): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<undefined, ListQuery>>({
      method: 'get',
      path: '/v1/debtors',
      operationId: 'listDebtors',
      summary: 'List debtors',
      description: 'Your organisation’s debtors, newest first, optionally filtered by `referenceId` or `email`.',
      tags: ['Debtors'],
      scope: 'debtors:read',
      query: listDebtorsQuery,
      responses: { 200: { description: 'A page of debtors.', schema: debtorListSchema, example: debtorListExample } },
      handler: async (_ctx, { db, auth, query }) => {
        const { limit, cursor, ...filters } = query;
        return {
          status: 200,
          body: await listDebtors(db, auth.organizationId, { page: { limit, cursor }, ...filters }),
        };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, IdParams>>({
      method: 'get',
      path: '/v1/debtors/{id}',
      operationId: 'getDebtor',
      summary: 'Get a debtor',
      tags: ['Debtors'],
      scope: 'debtors:read',
      params: idParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The debtor.', schema: debtorSchema, example: debtorExample } },
      handler: async (_ctx, { db, auth, params }) => {
        const debtor = await getDebtor(db, auth.organizationId, params.id);
        if (!debtor) throw errors.notFound('debtor');
        return { status: 200, body: debtor };
      },
    }),
    defineApiRoute<ApiMutationInput<NewDebtor>>({
      method: 'post',
      path: '/v1/debtors',
      operationId: 'createDebtor',
      summary: 'Create a debtor',
      description: 'Creates a debtor to raise debts against with `debtorId`. The `referenceId` must be new.',
      tags: ['Debtors'],
      scope: 'debtors:write',
      body: createDebtorBody,
      errorCases: { invalid_request: 'Also when another of your debtors already has this `referenceId`.' },
      responses: {
        201: {
          description: 'The debtor created.',
          schema: debtorSchema,
          example: { ...debtorExample, phone: null },
          headers: { Location: { description: 'The new debtor’s URL.', schema: { type: 'string' } } },
        },
      },
      handler: async (_ctx, { trx, auth, body }) => {
        const debtor = await createDebtor(trx, auth.organizationId, body);
        return { status: 201, body: debtor, headers: { Location: `/v1/debtors/${debtor.id}` } };
      },
    }),
    defineApiRoute<ApiMutationInput<DebtorPatch, Record<string, never>, IdParams>>({
      method: 'patch',
      path: '/v1/debtors/{id}',
      operationId: 'updateDebtor',
      summary: 'Amend a debtor',
      tags: ['Debtors'],
      scope: 'debtors:write',
      params: idParams,
      body: patchDebtorBody,
      errors: ['not_found'],
      errorCases: {
        invalid_request:
          'Also when another of your debtors already has this `referenceId`, or when the change would leave the ' +
          'debtor with neither email nor phone.',
      },
      responses: {
        200: {
          description: 'The debtor after the change.',
          schema: debtorSchema,
          example: { ...debtorExample, email: null, updatedAt: '2026-11-22T09:15:00.000Z' },
        },
      },
      handler: async (_ctx, { trx, auth, params, body }) => {
        const debtor = await updateDebtor(trx, auth.organizationId, params.id, body);
        if (!debtor) throw errors.notFound('debtor');
        return { status: 200, body: debtor };
      },
    }),
  ];
}
