/**
 * Refunds of payments the debt's workflow refused (`payment_refunds`): the processor took the money, but the debt
 * was settled, closed or owed less by the time the outcome was reported, so keeping it would be wrong. The whole
 * payment goes back through the processor that took it.
 *
 * Crash-safe and idempotent: the refund is recorded `pending` first (one row per attempt), the processor is asked
 * under a key made of the attempt's id (Stripe answers a repeated key with the same refund), and the row is marked
 * `succeeded` with the processor's refund id in the transaction that records the `payment.refunded` event. A crash
 * anywhere in between is mended by asking again (Stripe's webhook is redelivered until we answer 200; the pending
 * row is found and finished), and never refunds twice or loses the record.
 */
import { getDebt } from '../debts/debts';
import { toMoneyNumber } from '../debts/money';
import { recordEvent } from '../events/outbox';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import type { PaymentAttempt, ProcessorKind } from './payment-attempt';

/** Returns a payment in full through its processor; the same key twice must refund once. */
export interface Refunder {
  readonly kind: ProcessorKind;
  refund(attempt: PaymentAttempt, idempotencyKey: string): Promise<{ reference: string }>;
}

export type RefundStatus = 'pending' | 'succeeded';

/** A refund as the API shows it (the `payment.refunded` event's `refund`, the console's debt page). */
export interface Refund {
  id: string;
  debtId: string;
  /** The refunded payment's processor reference (a PaymentIntent's id). */
  paymentReference: string;
  amount: number;
  currency: string;
  /** Why the debt refused the payment: the lifecycle's error code and detail (ids, states and amounts only). */
  reason: string;
  status: RefundStatus;
  /** The processor's refund id (`re_…`), once it has refunded. */
  processorReference: string | null;
  createdAt: string;
  refundedAt: string | null;
}

interface RefundRow {
  id: string;
  organization_id: string;
  debt_id: string;
  attempt_id: string;
  processor: ProcessorKind;
  payment_reference: string;
  amount: string;
  currency: string;
  reason: string;
  status: RefundStatus;
  processor_reference: string | null;
  created_at: Date;
  refunded_at: Date | null;
}

function toRefund(row: RefundRow): Refund {
  return {
    id: row.id,
    debtId: row.debt_id,
    paymentReference: row.payment_reference,
    amount: toMoneyNumber(row.amount, row.currency),
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    processorReference: row.processor_reference,
    createdAt: row.created_at.toISOString(),
    refundedAt: row.refunded_at?.toISOString() ?? null,
  };
}

/** The processor's idempotency key for an attempt's refund: one attempt, one refund, however often it is asked. */
export function refundIdempotencyKey(attemptId: string): string {
  return `payment-refund-${attemptId}`;
}

/** Whether the attempt took money the debt refused: a success with a recorded refusal. */
export function needsRefund(attempt: PaymentAttempt): boolean {
  return attempt.status === 'succeeded' && attempt.reportRefusal !== null;
}

/**
 * Refunds a payment the debt refused, or finishes a refund a crash left pending; answers the refund as it now is
 * (null when the attempt needs none). A processor that does not answer is thrown: the caller asks again later.
 */
export async function refundRefusedPayment(
  deps: { db: Db; refunder: Refunder; now?: () => Date },
  attempt: PaymentAttempt,
): Promise<Refund | null> {
  if (!needsRefund(attempt)) return null;
  if (deps.refunder.kind !== attempt.processor) {
    throw new Error(`attempt ${attempt.id} was taken by ${attempt.processor}, not ${deps.refunder.kind}`);
  }
  const recorded = await recordPendingRefund(deps.db, attempt);
  if (recorded.status === 'succeeded') return toRefund(recorded);
  const { reference } = await deps.refunder.refund(attempt, refundIdempotencyKey(attempt.id));
  return deps.db.transaction(async (trx) => {
    const [done] = await trx<RefundRow>('payment_refunds')
      .where({ id: recorded.id, organization_id: attempt.organizationId, status: 'pending' })
      .update({ status: 'succeeded', processor_reference: reference, refunded_at: deps.now?.() ?? new Date() })
      .returning('*');
    // Finished meanwhile by another delivery of the same outcome: that one recorded the event.
    if (!done) return toRefund(await refundRow(trx, attempt));
    const refund = toRefund(done);
    const debt = await getDebt(trx, attempt.organizationId, attempt.debtId);
    await recordEvent(trx, attempt.organizationId, 'payment.refunded', { refund, debt });
    return refund;
  });
}

/** The attempt's refund row, written `pending` now unless it exists: recorded before the processor is asked. */
async function recordPendingRefund(db: Db, attempt: PaymentAttempt): Promise<RefundRow> {
  await db('payment_refunds')
    .insert({
      id: newId(),
      organization_id: attempt.organizationId,
      debt_id: attempt.debtId,
      attempt_id: attempt.id,
      processor: attempt.processor,
      payment_reference: attempt.processorReference,
      amount: attempt.amount,
      currency: attempt.currency,
      reason: attempt.reportRefusal ?? '',
      status: 'pending',
    })
    .onConflict('attempt_id')
    .ignore();
  return refundRow(db, attempt);
}

async function refundRow(db: Db, attempt: PaymentAttempt): Promise<RefundRow> {
  const row = await db<RefundRow>('payment_refunds')
    .where({ organization_id: attempt.organizationId, attempt_id: attempt.id })
    .first();
  if (!row) throw new Error(`refund of attempt ${attempt.id} vanished`);
  return row;
}

/** A debt's refunds, newest first (the console's debt page). */
export async function listDebtRefunds(db: Db, organizationId: string, debtId: string): Promise<Refund[]> {
  const rows = await db<RefundRow>('payment_refunds')
    .where({ organization_id: organizationId, debt_id: debtId })
    .orderBy('created_at', 'desc')
    .limit(50);
  return rows.map(toRefund);
}
