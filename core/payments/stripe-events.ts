/**
 * What a verified Stripe event does: `payment_intent.succeeded` and `payment_intent.payment_failed`
 * settle the attempt whose reference is the PaymentIntent's id, through `settlePaymentAttempt` (and so the debt's
 * workflow: `payment.received`, or a Failed transaction); `payment_intent.processing` leaves it processing; any other
 * type is ignored. The signature is checked before this is called (api/routes/stripe-webhook.ts).
 *
 * Deduplicated by the processor's reference: an attempt that already has the event's outcome reports nothing again
 * (Stripe delivers an event at least once, and may resend it). An event for a PaymentIntent we have no attempt for is
 * ignored; one that arrives before the attempt took the PaymentIntent's id (core/payments/stripe-processor.ts records
 * the attempt first, then the PaymentIntent) is matched by the ids in its metadata. A refusal by the debt's workflow
 * (the debt closed meanwhile) is recorded on the attempt, so Stripe is answered 200 and does not resend for days,
 * and the payment is refunded (./refunds.ts) before that 200: until the refund is recorded, Stripe keeps resending.
 */
import { amountsEqual } from '../debts/money';
import type { DebtTriggers } from '../lifecycle/triggers';
import type { Db } from '../platform/db';
import { isUuid } from '../platform/ids';
import {
  adoptProcessorReference,
  canSettle,
  findAttempt,
  findAttemptByReference,
  PENDING_REFERENCE_PREFIX,
  settlePaymentAttempt,
  type AttemptStatus,
  type PaymentAttempt,
} from './attempts';
import { refundRefusedPayment, type Refunder } from './refunds';
import type { Stripe } from './stripe-client';
import { fromStripeAmount } from './stripe-currencies';

export type StripeIngestOutcome =
  /** The attempt took the event's outcome now (and the debt's workflow recorded it, unless `refusedWith`). */
  | { outcome: 'settled'; attemptId: string; status: AttemptStatus; refusedWith: string | null }
  /** The attempt already had this outcome: reported before, not again. */
  | { outcome: 'duplicate'; attemptId: string; status: AttemptStatus }
  /** Nothing to do: why, for the log. */
  | { outcome: 'ignored'; reason: IgnoredReason; attemptId?: string };

export type IgnoredReason =
  | 'event_type'
  | 'unknown_reference'
  | 'still_processing'
  | 'amount_mismatch'
  /** A failure after the attempt succeeded (Stripe does not promise events in order): the success stands. */
  | 'superseded';

const OUTCOMES: Partial<Record<string, 'succeeded' | 'failed' | 'processing'>> = {
  'payment_intent.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'failed',
  'payment_intent.processing': 'processing',
};

export async function ingestStripeEvent(
  deps: { db: Db; triggers: DebtTriggers; refunder?: Refunder },
  event: Stripe.Event,
): Promise<StripeIngestOutcome> {
  const outcome = OUTCOMES[event.type];
  if (!outcome) return { outcome: 'ignored', reason: 'event_type' };
  const intent = event.data.object as Stripe.PaymentIntent;
  const attempt = await attemptOf(deps.db, intent);
  if (!attempt) return { outcome: 'ignored', reason: 'unknown_reference' };
  if (outcome === 'processing') return { outcome: 'ignored', reason: 'still_processing', attemptId: attempt.id };
  if (!sameAmount(attempt, intent)) return { outcome: 'ignored', reason: 'amount_mismatch', attemptId: attempt.id };
  if (attempt.status === outcome) {
    // A success the debt refused, delivered again because its refund did not finish (Stripe not answering, a
    // crash): the refund is finished now, under the same key, before Stripe is told 200.
    if (deps.refunder) await refundRefusedPayment({ ...deps, refunder: deps.refunder }, attempt);
    return { outcome: 'duplicate', attemptId: attempt.id, status: attempt.status };
  }
  if (!canSettle(attempt.status, outcome)) return { outcome: 'ignored', reason: 'superseded', attemptId: attempt.id };
  const settled = await settlePaymentAttempt(deps, attempt, { status: outcome }, { recordRefusal: true });
  return {
    outcome: 'settled',
    attemptId: settled.id,
    status: settled.status,
    refusedWith: settled.reportRefusal?.split(':')[0] ?? null,
  };
}

/** The attempt of a PaymentIntent: by its id, else by the ids its metadata carries while the attempt's is pending. */
async function attemptOf(db: Db, intent: Stripe.PaymentIntent): Promise<PaymentAttempt | null> {
  const byReference = await findAttemptByReference(db, 'stripe', intent.id);
  if (byReference) return byReference;
  const { organizationId, debtId, attemptId } = intent.metadata ?? {};
  if (!organizationId || !attemptId || !isUuid(organizationId) || !isUuid(attemptId)) return null;
  const pending = await findAttempt(db, organizationId, attemptId);
  if (!pending || pending.processor !== 'stripe' || pending.debtId !== debtId) return null;
  if (!pending.processorReference.startsWith(PENDING_REFERENCE_PREFIX)) return null;
  return adoptProcessorReference(db, pending, intent.id);
}

/**
 * The PaymentIntent charges what the attempt recorded, read back through Stripe's currency table (the one the charge
 * used, not ISO's minor units): anything else is not ours to report.
 */
function sameAmount(attempt: PaymentAttempt, intent: Stripe.PaymentIntent): boolean {
  if (intent.currency?.toUpperCase() !== attempt.currency) return false;
  const charged = fromStripeAmount(intent.amount, attempt.currency);
  return charged !== null && amountsEqual(charged, attempt.amount);
}
