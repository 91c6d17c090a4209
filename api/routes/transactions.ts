/** Transactions and payments: read-only lists (spec §4). Payments are `Inbound` + `Succeeded` transactions. */
import type { Scope } from '../../core/access/scopes';
import { getTransaction, listTransactions, type TransactionFilters } from '../../core/debts/transactions';
import { errors } from '../../core/platform/errors';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  listTransactionsQuery,
  transactionExample,
  transactionListExample,
  transactionListSchema,
  transactionSchema,
} from '../schemas/transactions';

type ListQuery = PageQuery & Omit<TransactionFilters, 'paymentsOnly'>;

interface ListSpec extends Pick<RouteDefinition, 'path' | 'operationId' | 'summary' | 'description'> {
  scope: Scope;
  pageDescription: string;
  paymentsOnly: boolean;
}

/** Payments are a filter of the transactions list, so both take the same query and answer the same page shape. */
function listRoute({ pageDescription, paymentsOnly, ...doc }: ListSpec): RouteDefinition {
  return defineApiRoute<ApiRouteInput<undefined, ListQuery>>({
    method: 'get',
    ...doc,
    tags: ['Transactions'],
    query: listTransactionsQuery,
    responses: {
      200: { description: pageDescription, schema: transactionListSchema, example: transactionListExample },
    },
    handler: async (_ctx, { db, auth, query }) => {
      const { limit, cursor, ...filters } = query;
      // On /v1/payments a `status` or `direction` filter narrows the payments: one that contradicts them matches none.
      const page = await listTransactions(db, auth.organizationId, {
        page: { limit, cursor },
        ...filters,
        paymentsOnly,
      });
      return { status: 200, body: page };
    },
  });
}

export function transactionRoutes(): RouteDefinition[] {
  return [
    listRoute({
      path: '/v1/transactions',
      operationId: 'listTransactions',
      summary: 'List transactions',
      description: 'Money movements on your debts, in every direction and status, newest first.',
      scope: 'transactions:read',
      pageDescription: 'A page of transactions.',
      paymentsOnly: false,
    }),
    listRoute({
      path: '/v1/payments',
      operationId: 'listPayments',
      summary: 'List payments',
      description: 'Payments received: transactions with direction `Inbound` and status `Succeeded`, newest first.',
      scope: 'payments:read',
      pageDescription: 'A page of payments.',
      paymentsOnly: true,
    }),
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string }>>({
      method: 'get',
      path: '/v1/transactions/{id}',
      operationId: 'getTransaction',
      summary: 'Get a transaction',
      tags: ['Transactions'],
      scope: 'transactions:read',
      params: idParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The transaction.', schema: transactionSchema, example: transactionExample } },
      handler: async (_ctx, { db, auth, params }) => {
        const transaction = await getTransaction(db, auth.organizationId, params.id);
        if (!transaction) throw errors.notFound('transaction');
        return { status: 200, body: transaction };
      },
    }),
  ];
}
