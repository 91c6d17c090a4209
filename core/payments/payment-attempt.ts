/**
 * The shape of a payment attempt and its processor's kind: the types attempts.ts, processor.ts and refunds.ts share,
 * in a module of their own so none of those imports another for a type.
 */

/** The processors that take a debtor's payment (docs/payments.md). */
export type ProcessorKind = 'test' | 'stripe';

export type AttemptStatus = 'processing' | 'succeeded' | 'declined' | 'failed';

export interface PaymentAttempt {
  id: string;
  organizationId: string;
  debtId: string;
  processor: ProcessorKind;
  processorReference: string;
  idempotencyKey: string;
  amount: string;
  currency: string;
  status: AttemptStatus;
  declineReason: string | null;
  /** Why the debt's workflow refused the outcome (e.g. `invalid_state: …`), when it did; null otherwise. */
  reportRefusal: string | null;
  createdAt: Date;
  settledAt: Date | null;
}
