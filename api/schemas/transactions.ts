/** JSON Schemas and examples of the transaction and payment lists. */
import { TRANSACTION_DIRECTIONS, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../core/debts/transactions';
import type { JsonSchema } from '../http/route-definition';
import {
  EXAMPLE_CURSOR,
  moneySchema,
  pagedListSchema,
  pageQueryProperties,
  timestampSchema,
  uuidSchema,
} from './common';

export const transactionSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'debtId', 'direction', 'status', 'type', 'amount', 'currency', 'processorReference', 'createdAt'],
  properties: {
    id: uuidSchema,
    debtId: uuidSchema,
    direction: { type: 'string', enum: [...TRANSACTION_DIRECTIONS] },
    status: { type: 'string', enum: [...TRANSACTION_STATUSES] },
    type: { type: 'string', enum: [...TRANSACTION_TYPES] },
    amount: moneySchema('Always positive; `direction` says which way it moved.'),
    currency: { type: 'string', description: 'ISO 4217 code: the debt’s currency.' },
    processorReference: { type: ['string', 'null'], description: 'The payment processor’s reference.' },
    createdAt: timestampSchema,
  },
};

export const transactionExample = {
  id: '01936f2a-1c44-7e0b-b2a7-0c9d8e7f6a51',
  debtId: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  direction: 'Inbound',
  status: 'Succeeded',
  type: 'Payment',
  amount: 250.25,
  currency: 'AUD',
  processorReference: 'pi_3Q0aBcDeFgHiJkLm',
  createdAt: '2026-11-23T09:30:00.000Z',
};

export const listTransactionsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    debtId: { ...uuidSchema, description: 'Only this debt’s transactions.' },
    status: { type: 'string', enum: [...TRANSACTION_STATUSES], description: 'Only transactions in this status.' },
    type: { type: 'string', enum: [...TRANSACTION_TYPES], description: 'Only transactions of this type.' },
    direction: { type: 'string', enum: [...TRANSACTION_DIRECTIONS], description: 'Only money moving this way.' },
  },
};

export const transactionListSchema = pagedListSchema(transactionSchema);
export const transactionListExample = { data: [transactionExample], nextCursor: EXAMPLE_CURSOR };
