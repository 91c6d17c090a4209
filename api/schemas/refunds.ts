/** The JSON Schema and example of a refund (the `payment.refunded` event's `refund`; core/payments/refunds.ts). */
import type { JsonSchema } from '../http/route-definition';
import { moneySchema, timestampSchema, uuidSchema } from './common';

export const refundSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'debtId',
    'paymentReference',
    'amount',
    'currency',
    'reason',
    'status',
    'processorReference',
    'createdAt',
    'refundedAt',
  ],
  properties: {
    id: uuidSchema,
    debtId: uuidSchema,
    paymentReference: {
      type: 'string',
      description: 'The refunded payment’s processor reference (e.g. a Stripe PaymentIntent’s id).',
    },
    amount: moneySchema('The whole payment, returned to the debtor.'),
    currency: { type: 'string', description: 'ISO 4217 code: the debt’s currency.' },
    reason: {
      type: 'string',
      description:
        'Why the debt refused the payment: an error code and its detail, e.g. `invalid_state: The debt is Settled…`.',
    },
    status: { type: 'string', enum: ['pending', 'succeeded'], description: 'Always `succeeded` in the event.' },
    processorReference: { type: ['string', 'null'], description: 'The processor’s refund id (e.g. `re_…`).' },
    createdAt: timestampSchema,
    refundedAt: { ...timestampSchema, type: ['string', 'null'] },
  },
};

export const refundExample = {
  id: '01936f2b-4d10-7a3e-9c1f-2b8e7d6c5a40',
  debtId: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  paymentReference: 'pi_3Q0aBcDeFgHiJkLn',
  amount: 250.25,
  currency: 'AUD',
  reason: 'invalid_state: The debt is Settled: its life has ended.',
  status: 'succeeded',
  processorReference: 're_3Q0aBcDeFgHiJkLo',
  createdAt: '2026-11-23T09:31:00.000Z',
  refundedAt: '2026-11-23T09:31:01.000Z',
};
