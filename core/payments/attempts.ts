/**
 * Payment attempts (`payment_attempts`): the record of each payment a processor was asked for, and the one place
 * that reports a processor's outcome to the debt's workflow (through the lifecycle's triggers, as the sandbox's
 * simulations do). Reporting comes before the row is marked settled: if the process dies between the two, the next
 * report of the same outcome (a webhook redelivered, a timer retried) reports again, and the workflow counts a
 * processor reference once.
 */
import type { DebtTriggers } from '../lifecycle/triggers';
import type { Db } from '../platform/db';
import { ApiError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { AttemptStatus, PaymentAttempt, ProcessorKind } from './payment-attempt';
import { refundRefusedPayment, type Refunder } from './refunds';

export type { AttemptStatus, PaymentAttempt } from './payment-attempt';

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
  report_refusal: string | null;
  /** Open beside another before the one-open-attempt rule (migrations/20261205090000): outside its index. */
  opened_beside_another: boolean;
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
    reportRefusal: row.report_refusal,
    createdAt: row.created_at,
    settledAt: row.settled_at,
  };
}

/** What a new attempt is recorded with; `id` chosen by the caller when the processor must know it first. */
export type NewAttempt = Pick<
  PaymentAttempt,
  'organizationId' | 'debtId' | 'processor' | 'processorReference' | 'idempotencyKey' | 'amount' | 'currency'
> & { id?: string };

/** The partial unique index of migrations/20261205090000: at most one `processing` attempt per debt. */
const ONE_OPEN_PER_DEBT = 'payment_attempts_one_open_per_debt';

function isOpenAttemptConflict(err: unknown): boolean {
  const pg = err as { code?: unknown; constraint?: unknown } | null;
  return pg?.code === '23505' && pg.constraint === ONE_OPEN_PER_DEBT;
}

/**
 * Record a new attempt in `processing`; if the debt already has one with this idempotency key, that one is returned
 * instead (`created: false`) and the caller must not ask the processor again. A debt has at most one open attempt
 * (enforced by the database, so two tabs racing cannot both start one): while another form's attempt is open, that
 * one is returned (`created: false`, another `idempotencyKey`) and the caller shows it instead of starting a payment.
 */
export async function recordAttempt(db: Db, input: NewAttempt): Promise<{ attempt: PaymentAttempt; created: boolean }> {
  // A few rounds at most: the open attempt that refused this one may be settled before we read it.
  for (let round = 0; round < 3; round++) {
    let inserted: AttemptRow | undefined;
    try {
      [inserted] = await db('payment_attempts')
        .insert({
          id: input.id ?? newId(),
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
    } catch (err) {
      if (!isOpenAttemptConflict(err)) throw err;
      const open = await findOpenAttempt(db, input.organizationId, input.debtId);
      if (open) return { attempt: open, created: false };
      continue;
    }
    if (inserted) return { attempt: toAttempt(inserted), created: true };
    const existing = await db<AttemptRow>('payment_attempts')
      .where({ debt_id: input.debtId, idempotency_key: input.idempotencyKey, organization_id: input.organizationId })
      .first();
    if (!existing) throw new Error('payment attempt vanished after an idempotency conflict');
    return { attempt: toAttempt(existing), created: false };
  }
  throw new ApiError('service_unavailable', 'Another payment on this debt is changing; try again shortly.');
}

/** The debt's attempt still in `processing` (the one the database allows), or null. */
export async function findOpenAttempt(db: Db, organizationId: string, debtId: string): Promise<PaymentAttempt | null> {
  const row = await db<AttemptRow>('payment_attempts')
    .where({ organization_id: organizationId, debt_id: debtId, status: 'processing', opened_beside_another: false })
    .first();
  return row ? toAttempt(row) : null;
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

export interface SettleOptions {
  /**
   * For outcomes that arrive on their own (the processor's webhook, the test processor's timer): when the debt's
   * workflow refuses the report for good (a 4xx: the debt was closed or settled meanwhile, an amount above the
   * balance), the attempt is still marked with the processor's outcome and the refusal is recorded in
   * `report_refusal` for an operator, instead of the error being thrown and the report asked for again for ever.
   * A workflow that does not answer (503) is still thrown: the caller retries. With `deps.refunder`, a refused
   * success is then refunded (./refunds.ts). Off by default.
   */
  recordRefusal?: boolean;
}

/** The debt's workflow said no for good (a 4xx other than a rate limit); anything else is worth asking again. */
function isRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status < 500 && err.code !== 'rate_limited';
}

/** Whether `outcome` may replace the attempt's status: a first outcome, or a success after a failure (Stripe's
 * PaymentIntent takes another card after `payment_failed`, under the same reference; the lifecycle counts both). */
export function canSettle(current: AttemptStatus, outcome: AttemptOutcome['status']): boolean {
  return current === 'processing' || (current === 'failed' && outcome === 'succeeded');
}

/**
 * Settle an attempt with the processor's outcome: a success or a (late) failure is reported to the debt's workflow,
 * a decline only recorded. An attempt that already has this outcome is answered as it is and reported no more (a
 * redelivered webhook); one settled otherwise is left as it is (the first outcome stands, but a success may follow a
 * failure) and returned for the caller to log.
 */
export async function settlePaymentAttempt(
  deps: { db: Db; triggers: DebtTriggers; now?: () => Date; refunder?: Refunder },
  attempt: PaymentAttempt,
  outcome: AttemptOutcome,
  options: SettleOptions = {},
): Promise<PaymentAttempt> {
  if (!canSettle(attempt.status, outcome.status)) return attempt;
  let refusal: string | null = null;
  if (outcome.status !== 'declined') {
    try {
      await deps.triggers.reportPayment(attempt.organizationId, attempt.debtId, {
        amount: attempt.amount,
        processorReference: attempt.processorReference,
        succeeded: outcome.status === 'succeeded',
      });
    } catch (err) {
      if (!(options.recordRefusal && isRefusal(err))) throw err;
      refusal = `${err.code}: ${err.message}`;
    }
  }
  const settleable: AttemptStatus[] = outcome.status === 'succeeded' ? ['processing', 'failed'] : ['processing'];
  const [row] = await deps
    .db('payment_attempts')
    .where({ id: attempt.id })
    .whereIn('status', settleable)
    .update({
      status: outcome.status,
      decline_reason: outcome.status === 'declined' ? outcome.reason : null,
      report_refusal: refusal,
      settled_at: deps.now?.() ?? new Date(),
    })
    .returning<AttemptRow[]>('*');
  const settled = row ? toAttempt(row) : ((await findAttempt(deps.db, attempt.organizationId, attempt.id)) ?? attempt);
  // Money the debt refused is not kept: returned through the processor that took it (./refunds.ts).
  if (deps.refunder) await refundRefusedPayment({ ...deps, refunder: deps.refunder }, settled);
  return settled;
}

/** Marks a processing attempt declined (the processor refused it outright); answers the attempt as it now is. */
export async function declineAttempt(db: Db, attempt: PaymentAttempt, reason: string): Promise<PaymentAttempt> {
  const [row] = await db('payment_attempts')
    .where({ id: attempt.id, organization_id: attempt.organizationId, status: 'processing' })
    .update({ status: 'declined', decline_reason: reason, settled_at: new Date() })
    .returning<AttemptRow[]>('*');
  if (row) return toAttempt(row);
  return (await findAttempt(db, attempt.organizationId, attempt.id)) ?? attempt;
}

/** The prefix of an attempt's reference until the processor has named the payment (the Stripe adapter's). */
export const PENDING_REFERENCE_PREFIX = 'pending_';

/**
 * Gives an attempt recorded under a pending reference the processor's own (a PaymentIntent's id), once; a second
 * call with the same reference is a no-op. Answers the attempt as it now is, or null when it has another reference.
 */
export async function adoptProcessorReference(
  db: Db,
  attempt: PaymentAttempt,
  processorReference: string,
): Promise<PaymentAttempt | null> {
  if (attempt.processorReference === processorReference) return attempt;
  const [row] = await db('payment_attempts')
    .where({ id: attempt.id, organization_id: attempt.organizationId })
    .where('processor_reference', 'like', `${PENDING_REFERENCE_PREFIX}%`)
    .update({ processor_reference: processorReference })
    .returning<AttemptRow[]>('*');
  if (row) return toAttempt(row);
  const current = await findAttempt(db, attempt.organizationId, attempt.id);
  return current?.processorReference === processorReference ? current : null;
}
