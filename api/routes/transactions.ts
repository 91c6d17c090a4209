/** Transactions and payments: read-only lists (spec §4). Payments are `Inbound` + `Succeeded` transactions. */
import type { Scope } from '../../core/access/scopes';
import { listTransactions } from '../../core/debts/transactions';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';
import type { PageQuery } from '../schemas/common';
import { listTransactionsQuery, transactionListExample, transactionListSchema } from '../schemas/transactions';

type ListQuery = PageQuery & { debtId?: string };

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
      const { limit, cursor, debtId } = query;
      const page = await listTransactions(db, auth.organizationId, { page: { limit, cursor }, debtId, paymentsOnly });
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
  ];
}
