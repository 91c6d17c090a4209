/** Transactions and payments: read-only lists (spec §4). Payments are `Inbound` + `Succeeded` transactions. */
import { listTransactions } from '../../core/transactions';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../route';
import type { PageQuery } from '../schemas/common';
import { listTransactionsQuery, transactionListExample, transactionListSchema } from '../schemas/transactions';

type ListQuery = PageQuery & { debtId?: string };

export function transactionRoutes(): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<undefined, ListQuery>>({
      method: 'get',
      path: '/v1/transactions',
      operationId: 'listTransactions',
      summary: 'List transactions',
      description: 'Money movements on your debts, in every direction and status, newest first.',
      tags: ['Transactions'],
      scope: 'transactions:read',
      query: listTransactionsQuery,
      responses: {
        200: { description: 'A page of transactions.', schema: transactionListSchema, example: transactionListExample },
      },
      handler: async (_ctx, { db, auth, query }) => {
        const { limit, cursor, debtId } = query;
        return {
          status: 200,
          body: await listTransactions(db, auth.organizationId, { page: { limit, cursor }, debtId }),
        };
      },
    }),
    defineApiRoute<ApiRouteInput<undefined, ListQuery>>({
      method: 'get',
      path: '/v1/payments',
      operationId: 'listPayments',
      summary: 'List payments',
      description: 'Payments received: transactions with direction `Inbound` and status `Succeeded`, newest first.',
      tags: ['Transactions'],
      scope: 'payments:read',
      query: listTransactionsQuery,
      responses: {
        200: { description: 'A page of payments.', schema: transactionListSchema, example: transactionListExample },
      },
      handler: async (_ctx, { db, auth, query }) => {
        const { limit, cursor, debtId } = query;
        const page = await listTransactions(db, auth.organizationId, {
          page: { limit, cursor },
          debtId,
          paymentsOnly: true,
        });
        return { status: 200, body: page };
      },
    }),
  ];
}
