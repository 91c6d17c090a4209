/**
 * Payment attempts (`payment_attempts`): the record of each payment a processor was asked for, and the one place
 * that reports a processor's outcome to the debt's workflow (through the lifecycle's triggers, as the sandbox's
 * simulations do). Reporting comes before the row is marked settled: if the process dies between the two, the next
 * report of the same outcome (a webhook redelivered, a timer retried) reports again, and the workflow counts a
 * processor reference once.
 */
import type { DebtTriggers } from '../lifecycle/triggers';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import type { ProcessorKind } from './processor';

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
  createdAt: Date;
  settledAt: Date | null;
}

interface AttemptRow {
  id: string;
  organization_id: string;
  debt_id: string;
  processor: ProcessorKind;
  processor_reference: string;
  idempotency_key: string;
  amount: string;
  currency: string;
  status: AttemptStatus;
  decline_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
}

function toAttempt(row: AttemptRow): PaymentAttempt {
  return {
    id: row.id,
    organizationId: row.organization_id,
    debtId: row.debt_id,
    processor: row.processor,
    processorReference: row.processor_reference,
    idempotencyKey: row.idempotency_key,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    declineReason: row.decline_reason,
    createdAt: row.created_at,
    settledAt: row.settled_at,
  };
}

export interface NewAttempt {
  organizationId: string;
  debtId: string;
  processor: ProcessorKind;
  processorReference: string;
  idempotencyKey: string;
  amount: string;
  currency: string;
}

/**
 * Record a new attempt in `processing`; if the debt already has one with this idempotency key, that one is returned
 * instead (`created: false`) and the caller must not ask the processor again.
 */
export async function recordAttempt(db: Db, input: NewAttempt): Promise<{ attempt: PaymentAttempt; created: boolean }> {
  const [inserted] = await db('payment_attempts')
    .insert({
      id: newId(),
      organization_id: input.organizationId,
      debt_id: input.debtId,
      processor: input.processor,
      processor_reference: input.processorReference,
      idempotency_key: input.idempotencyKey,
      amount: input.amount,
      currency: input.currency,
      status: 'processing',
    })
    .onConflict(['debt_id', 'idempotency_key'])
    .ignore()
    .returning<AttemptRow[]>('*');
  if (inserted) return { attempt: toAttempt(inserted), created: true };
  const existing = await db<AttemptRow>('payment_attempts')
    .where({ debt_id: input.debtId, idempotency_key: input.idempotencyKey, organization_id: input.organizationId })
    .first();
  if (!existing) throw new Error('payment attempt vanished after an idempotency conflict');
  return { attempt: toAttempt(existing), created: false };
}

export async function findAttemptByReference(
  db: Db,
  processor: ProcessorKind,
  processorReference: string,
): Promise<PaymentAttempt | null> {
  const row = await db<AttemptRow>('payment_attempts')
    .where({ processor, processor_reference: processorReference })
    .first();
  return row ? toAttempt(row) : null;
}

export async function findAttempt(db: Db, organizationId: string, attemptId: string): Promise<PaymentAttempt | null> {
  const row = await db<AttemptRow>('payment_attempts')
    .where({ organization_id: organizationId, id: attemptId })
    .first();
  return row ? toAttempt(row) : null;
}

export type AttemptOutcome = { status: 'succeeded' } | { status: 'failed' } | { status: 'declined'; reason: string };

/**
 * Settle an attempt with the processor's outcome: a success or a (late) failure is reported to the debt's workflow,
 * a decline only recorded. Settling again with the outcome it has is a no-op that answers the attempt; an attempt
 * already settled otherwise is left as it is (the first outcome stands) and returned for the caller to log.
 */
export async function settlePaymentAttempt(
  deps: { db: Db; triggers: DebtTriggers; now?: () => Date },
  attempt: PaymentAttempt,
  outcome: AttemptOutcome,
): Promise<PaymentAttempt> {
  if (attempt.status !== 'processing' && attempt.status !== outcome.status) return attempt;
  if (outcome.status !== 'declined') {
    await deps.triggers.reportPayment(attempt.organizationId, attempt.debtId, {
      amount: attempt.amount,
      processorReference: attempt.processorReference,
      succeeded: outcome.status === 'succeeded',
    });
  }
  const [row] = await deps
    .db('payment_attempts')
    .where({ id: attempt.id, status: 'processing' })
    .update({
      status: outcome.status,
      decline_reason: outcome.status === 'declined' ? outcome.reason : null,
      settled_at: deps.now?.() ?? new Date(),
    })
    .returning<AttemptRow[]>('*');
  if (row) return toAttempt(row);
  return (await findAttempt(deps.db, attempt.organizationId, attempt.id)) ?? attempt;
}
