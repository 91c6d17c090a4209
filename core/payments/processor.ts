/**
 * The payment processor (DECISIONS.md §3 names it as the source of payments). Two implementations
 * share this contract: the test-mode processor (sandbox and development; test card numbers decide the outcome) and
 * the Stripe adapter (production). A processor's *outcome*, never the portal's click, reports a payment to the debt's
 * workflow: `settlePaymentAttempt` (./attempts) is the one place that does, through the lifecycle's triggers.
 */

import type { PaymentAttempt, ProcessorKind } from './payment-attempt';

export type { ProcessorKind };

export interface PaymentRequest {
  organizationId: string;
  debtId: string;
  /** A positive decimal string in the debt's currency (already checked against the balance by the caller). */
  amount: string;
  currency: string;
  /** One per portal form: the same key submitted twice starts one payment (unique per debt). */
  idempotencyKey: string;
  /** Test mode only: the card number typed into the portal's form. Stripe's card data never reaches our servers. */
  testCardNumber?: string;
}

/** What starting a payment did; the attempt's row in `payment_attempts` says the same. */
export type PaymentStart =
  /** Settled at once and reported to the workflow before this returned. */
  | { status: 'succeeded'; attemptId: string }
  /** Refused by the card's issuer: nothing was reported, the debt is unchanged. */
  | { status: 'declined'; attemptId: string; reason: string }
  /** Accepted for processing: the outcome arrives later (the processor's webhook, or the test processor's timer). */
  | { status: 'processing'; attemptId: string }
  /** Stripe: the browser confirms the card with Stripe's own script, using this PaymentIntent's client secret. */
  | { status: 'requires_confirmation'; attemptId: string; clientSecret: string; publishableKey: string }
  /** Taken, but the debt refused it (settled meanwhile, or more than the balance): returned in full (./refunds.ts). */
  | { status: 'refunded'; attemptId: string; reason: string }
  /** Another form's payment on this debt is still in flight (one at a time): nothing was started; it is shown. */
  | { status: 'already_open'; attemptId: string; amount: string };

/** Why a processor cannot take an amount in a currency at all (./stripe-currencies.ts): asked before any attempt. */
export type ChargeRefusal =
  | { reason: 'currency_not_supported' }
  /** `step`: the smallest amount it charges in the currency ("0.01" in KWD at Stripe); amounts go in such steps. */
  | { reason: 'amount_not_representable'; step: string };

export interface PaymentProcessor {
  readonly kind: ProcessorKind;
  /** Null when the processor can charge `amount` (a decimal; omitted: any amount) in `currency`. */
  refusal(currency: string, amount?: string): ChargeRefusal | null;
  start(request: PaymentRequest): Promise<PaymentStart>;
  /** Where the debt's open attempt stands, to show it again (a second tab): never starts another payment. */
  resume(attempt: PaymentAttempt): Promise<PaymentStart>;
  /**
   * Abandons the open attempt the debtor has not confirmed (to pay another amount): true when nothing can charge it
   * any more and it is closed (`declined`, reason ABANDONED_BY_DEBTOR); false when it is past that (being charged).
   */
  abandon(attempt: PaymentAttempt): Promise<boolean>;
}

/** The decline reason of an attempt the debtor abandoned before confirming it. */
export const ABANDONED_BY_DEBTOR = 'abandoned_by_debtor';
