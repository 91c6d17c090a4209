/**
 * Stripe's side of a refund (./refunds.ts): a Refund of the whole PaymentIntent through Stripe's Refunds API, under
 * the refund's idempotency key, so asking again after a crash or a timeout returns the same refund. Stripe keeps a
 * key for 24 hours: asked later still, it answers that the charge is already refunded, and the refund it made is
 * looked up instead of made again. Metadata carries ids only, as the PaymentIntent's does.
 */
import type { PaymentAttempt } from './attempts';
import type { Refunder } from './refunds';
import type { Stripe } from './stripe-client';
import { withStripe } from './stripe-processor';

function stripeCode(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

export function createStripeRefunder(stripe: Stripe): Refunder {
  async function existingRefund(attempt: PaymentAttempt): Promise<string | undefined> {
    const refunds = await withStripe(() =>
      stripe.refunds.list({ payment_intent: attempt.processorReference, limit: 1 }),
    );
    return refunds.data[0]?.id;
  }

  return {
    kind: 'stripe',
    async refund(attempt, idempotencyKey) {
      try {
        const refund = await withStripe(() =>
          stripe.refunds.create(
            {
              payment_intent: attempt.processorReference,
              reason: 'requested_by_customer',
              metadata: { organizationId: attempt.organizationId, debtId: attempt.debtId, attemptId: attempt.id },
            },
            { idempotencyKey },
          ),
        );
        return { reference: refund.id };
      } catch (err) {
        if (stripeCode(err) !== 'charge_already_refunded') throw err;
        const reference = await existingRefund(attempt);
        if (!reference) throw err;
        return { reference };
      }
    },
  };
}
