/**
 * The Stripe adapter: production's `PaymentProcessor`. A payment is a PaymentIntent created here,
 * server-side, for the attempt's amount in the currency's minor units; the debtor's browser then confirms it with the
 * card form of Stripe's own script (web/portal/stripe-confirmation.tsx), so card data never reaches our servers.
 * The outcome arrives later, as Stripe's webhook (./stripe-events.ts), and only that reports the payment.
 *
 * Order, so that no PaymentIntent exists without its attempt: the attempt is recorded first, under a pending
 * reference, and its id goes into the PaymentIntent's metadata; the PaymentIntent's id then becomes the attempt's
 * reference. A webhook that arrives between the two finds the attempt by that metadata. Stripe's idempotency key is
 * the attempt's, so a retried form (or a crash between the steps) gets the same PaymentIntent, never a second one.
 * Metadata carries ids only: no debtor name, email or free text goes to Stripe from here.
 */
import { ApiError } from '../platform/errors';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import {
  adoptProcessorReference,
  declineAttempt,
  PENDING_REFERENCE_PREFIX,
  recordAttempt,
  type PaymentAttempt,
} from './attempts';
import { ABANDONED_BY_DEBTOR, type ChargeRefusal, type PaymentProcessor, type PaymentStart } from './processor';
import type { Stripe } from './stripe-client';
import { toStripeAmount } from './stripe-currencies';

export interface StripeProcessorDeps {
  db: Db;
  stripe: Stripe;
  /** Handed to the portal's card form with the client secret (public by design). */
  publishableKey: string;
}

/** Stripe's idempotency key for an attempt's PaymentIntent: one attempt, one PaymentIntent. */
export function stripeIdempotencyKey(attemptId: string): string {
  return `payment-attempt-${attemptId}`;
}

/** The PaymentIntent's metadata: ids only (Stripe shows it in its dashboard and sends it back in every event). */
export interface PaymentIntentMetadata {
  organizationId: string;
  debtId: string;
  attemptId: string;
  [key: string]: string;
}

/** Stripe's rules for the currency (./stripe-currencies.ts); without an amount, only whether it takes the currency. */
export function stripeRefusal(currency: string, amount?: string): ChargeRefusal | null {
  const converted = toStripeAmount(amount ?? '0', currency);
  return converted.ok ? null : converted;
}

/** Stripe's `amount` for the attempt; the portal checked `stripeRefusal` first, so a refusal here is a caller's bug. */
function stripeAmountOf(attempt: PaymentAttempt): number {
  const converted = toStripeAmount(attempt.amount, attempt.currency);
  if (!converted.ok) throw new Error(`attempt ${attempt.id}: Stripe cannot charge it (${converted.reason})`);
  return converted.amount;
}

export function createStripeProcessor(deps: StripeProcessorDeps): PaymentProcessor {
  const { db, stripe } = deps;

  async function createIntent(attempt: PaymentAttempt): Promise<Stripe.PaymentIntent> {
    const metadata: PaymentIntentMetadata = {
      organizationId: attempt.organizationId,
      debtId: attempt.debtId,
      attemptId: attempt.id,
    };
    return stripe.paymentIntents.create(
      {
        amount: stripeAmountOf(attempt),
        currency: attempt.currency.toLowerCase(),
        allowed_payment_method_types: ['card'],
        metadata,
      },
      { idempotencyKey: stripeIdempotencyKey(attempt.id) },
    );
  }

  /** An attempt's PaymentIntent (made now if the attempt has none yet) and what the browser does next. */
  async function continueAttempt(attempt: PaymentAttempt): Promise<PaymentStart> {
    if (attempt.status === 'succeeded') {
      return attempt.reportRefusal
        ? { status: 'refunded', attemptId: attempt.id, reason: attempt.reportRefusal }
        : { status: 'succeeded', attemptId: attempt.id };
    }
    if (attempt.status === 'declined') {
      return { status: 'declined', attemptId: attempt.id, reason: attempt.declineReason ?? 'card_declined' };
    }
    // Processing, or failed (a PaymentIntent whose card failed takes another): the browser confirms it.
    const pending = attempt.processorReference.startsWith(PENDING_REFERENCE_PREFIX);
    let intent: Stripe.PaymentIntent;
    try {
      intent = await withStripe(() =>
        pending ? createIntent(attempt) : stripe.paymentIntents.retrieve(attempt.processorReference),
      );
    } catch (err) {
      // Stripe refused the PaymentIntent itself (a rule our table missed): no PaymentIntent exists, so the
      // attempt ends declined and the debt stays free for another payment, rather than a 500 and an open attempt.
      if (!(pending && errorType(err) === 'StripeInvalidRequestError')) throw err;
      const declined = await declineAttempt(db, attempt, PROCESSOR_REFUSED);
      return { status: 'declined', attemptId: declined.id, reason: PROCESSOR_REFUSED };
    }
    const adopted = await adoptProcessorReference(db, attempt, intent.id);
    if (!adopted) throw new Error(`payment attempt ${attempt.id} already names another PaymentIntent`);
    // Confirmed already (the webhook not yet here): nothing for the browser to do, the outcome is on its way.
    if (intent.status === 'succeeded' || intent.status === 'processing' || !intent.client_secret) {
      return { status: 'processing', attemptId: attempt.id };
    }
    return {
      status: 'requires_confirmation',
      attemptId: attempt.id,
      clientSecret: intent.client_secret,
      publishableKey: deps.publishableKey,
    };
  }

  return {
    kind: 'stripe',
    refusal: stripeRefusal,
    async start(request): Promise<PaymentStart> {
      // Before anything is recorded: an amount Stripe would refuse leaves no attempt behind.
      const refusal = stripeRefusal(request.currency, request.amount);
      if (refusal) throw refusalError(refusal, request.currency);
      const id = newId();
      const { attempt } = await recordAttempt(db, {
        id,
        organizationId: request.organizationId,
        debtId: request.debtId,
        processor: 'stripe',
        processorReference: `${PENDING_REFERENCE_PREFIX}${id}`,
        idempotencyKey: request.idempotencyKey,
        amount: request.amount,
        currency: request.currency,
      });
      // Another tab's payment is in flight: one PaymentIntent per debt at a time, so this form starts none.
      if (attempt.idempotencyKey !== request.idempotencyKey) {
        return { status: 'already_open', attemptId: attempt.id, amount: attempt.amount };
      }
      return continueAttempt(attempt);
    },
    resume: continueAttempt,
    async abandon(attempt): Promise<boolean> {
      if (attempt.status !== 'processing') return false;
      if (!attempt.processorReference.startsWith(PENDING_REFERENCE_PREFIX)) {
        try {
          // Stripe cancels a PaymentIntent only while no charge is under way: then nothing can confirm it any more.
          await withStripe(() =>
            stripe.paymentIntents.cancel(
              attempt.processorReference,
              { cancellation_reason: 'abandoned' },
              { idempotencyKey: `abandon-${attempt.id}` },
            ),
          );
        } catch (err) {
          if (errorType(err) === 'StripeInvalidRequestError') return false; // confirmed meanwhile: let it finish
          throw err;
        }
      }
      return (await declineAttempt(db, attempt, ABANDONED_BY_DEBTOR)).status === 'declined';
    },
  };
}

/** The decline reason of a PaymentIntent Stripe refused to create (an InvalidRequestError). */
export const PROCESSOR_REFUSED = 'processor_refused';

export function errorType(err: unknown): unknown {
  return (err as { type?: unknown } | null)?.type;
}

/** A 400 the portal shows as a page (it checks `refusal` first, so this is the API's safety net, never a 500). */
function refusalError(refusal: ChargeRefusal, currency: string): ApiError {
  return refusal.reason === 'currency_not_supported'
    ? new ApiError('invalid_request', `Card payments in ${currency} are not available.`)
    : new ApiError('invalid_request', `Card payments in ${currency} go in steps of ${refusal.step} ${currency}.`);
}

const RETRYABLE_STRIPE_ERRORS = new Set([
  'StripeConnectionError',
  'StripeAPIError',
  'StripeRateLimitError',
  'StripeIdempotencyError',
]);

/** Stripe not answering (network, its 5xx, its rate limit) is our 503: the debtor may try again shortly. */
export async function withStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const type = errorType(err);
    // An idempotency error here is the same form's twin request still in flight at Stripe: also worth a retry.
    if (typeof type === 'string' && RETRYABLE_STRIPE_ERRORS.has(type)) {
      throw new ApiError('service_unavailable', 'The payment processor is not answering; try again shortly.');
    }
    throw err;
  }
}
