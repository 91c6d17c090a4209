/** The payment form and the processor's answers, in plain words. */
import type { PaymentStart } from '../../core/payments/processor';
import { TEST_CARDS } from '../../core/payments/test-mode-processor';
import { CsrfField } from '../layout';
import { moneyText } from './format';
import { BackToAccount, FieldError, ProblemBanner, invalidAttributes } from './form-parts';

export interface PayFormProps {
  csrfToken: string;
  attemptKey: string;
  outstanding: string;
  currency: string;
  /** What is left of the next instalment of a running plan, if any. */
  instalment: { amount: string; dueDate: string } | null;
  /** The test-mode processor takes a test card number typed here; Stripe's card form is its own. */
  testMode: boolean;
  /** The test cards are named under the card number (never on a real production host: test-card-hint.ts). */
  testCardHint: boolean;
  available: boolean;
  /** The processor does not charge in the debt's currency (e.g. Stripe and IQD): no form, another way to pay. */
  currencyRefused?: boolean;
  values?: { choice: string; amount: string };
  problem?: string;
}

export function PayFormBody(props: PayFormProps) {
  if (props.currencyRefused) {
    return (
      <section class="card">
        <p>
          Card payments in {props.currency} are not available, so you cannot pay online. Please contact us to pay: our
          details are below.
        </p>
        <BackToAccount />
      </section>
    );
  }
  if (!props.available) {
    return (
      <section class="card">
        <p>Online payment is not available at the moment. Please contact us to pay: our details are below.</p>
        <BackToAccount />
      </section>
    );
  }
  const choice = props.values?.choice ?? (props.instalment ? 'instalment' : 'full');
  // A refused amount gets its message above it; a refused choice is described by the summary.
  const amountRefused = choice === 'other' ? props.problem : undefined;
  const invalid = invalidAttributes(props.problem, amountRefused ? 'amount-error' : 'pay-problem');
  // The summary's link goes to what is to be corrected: the amount typed, else the first choice.
  const problemField = choice === 'other' ? 'amount' : props.instalment ? 'choice-instalment' : 'choice-full';
  return (
    <>
      <ProblemBanner id="pay-problem" problem={props.problem} field={problemField} />
      <section class="card">
        <form method="post" action="/portal/pay" class="stack">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="attempt" value={props.attemptKey} />
          <fieldset>
            <legend>How much do you want to pay?</legend>
            {props.instalment && (
              <div class="choice">
                <input
                  type="radio"
                  id="choice-instalment"
                  name="choice"
                  value="instalment"
                  checked={choice === 'instalment'}
                />
                <label for="choice-instalment">
                  The next payment of your plan: {moneyText(props.instalment.amount, props.currency)}
                </label>
              </div>
            )}
            <div class="choice">
              <input type="radio" id="choice-full" name="choice" value="full" checked={choice === 'full'} />
              <label for="choice-full">The full balance: {moneyText(props.outstanding, props.currency)}</label>
            </div>
            <div class="choice">
              <input type="radio" id="choice-other" name="choice" value="other" checked={choice === 'other'} />
              <label for="choice-other">Another amount</label>
            </div>
            {/* Shown only while "Another amount" is chosen, by CSS alone (design.css, .reveal): no script needed. */}
            <div class="reveal">
              <label for="amount">Other amount ({props.currency})</label>
              <FieldError id="amount-error" problem={amountRefused} />
              <input
                id="amount"
                name="amount"
                type="text"
                inputMode="decimal"
                autocomplete="off"
                value={props.values?.amount ?? ''}
                {...invalid}
              />
            </div>
          </fieldset>
          {props.testMode && (
            <>
              <label for="cardNumber">Card number</label>
              {props.testCardHint && (
                <p class="hint" id="cardNumber-hint">
                  Test mode: no money moves. {spaced(TEST_CARDS.succeeds)} succeeds, {spaced(TEST_CARDS.declined)} is
                  declined, {spaced(TEST_CARDS.failsLater)} fails later.
                </p>
              )}
              <input
                id="cardNumber"
                name="cardNumber"
                type="text"
                inputMode="numeric"
                autocomplete="cc-number"
                required
                {...(props.testCardHint ? { 'aria-describedby': 'cardNumber-hint' } : {})}
              />
            </>
          )}
          <button type="submit" class="primary">
            Pay now
          </button>
        </form>
        <BackToAccount />
      </section>
    </>
  );
}

function spaced(card: string): string {
  return card.replace(/(\d{4})(?=\d)/g, '$1 ');
}

export const PAYMENT_TITLES: Record<PaymentStart['status'], string> = {
  succeeded: 'Payment received',
  declined: 'Payment declined',
  processing: 'Payment being processed',
  requires_confirmation: 'Confirm your card',
  refunded: 'Payment refunded',
  already_open: 'A payment is already in progress',
};

export function PaymentResultBody(props: { start: PaymentStart; amount: string; balance: string; currency: string }) {
  const amount = moneyText(props.amount, props.currency);
  const words: Record<PaymentStart['status'], string> = {
    succeeded: `Thank you. We have received your payment of ${amount}. Your balance is now ${moneyText(
      props.balance,
      props.currency,
    )}.`,
    declined:
      props.start.status === 'declined' && props.start.reason === 'processor_refused'
        ? 'The card payment could not be set up for this amount, so no money was taken and your balance has not ' +
          'changed. Please contact us to pay.'
        : `Your card was declined, so no money was taken and your balance has not changed. You can try another card.`,
    processing: `Your payment of ${amount} is being processed. We will confirm once it is complete; your balance will update then.`,
    requires_confirmation: 'Your card needs one more step. No money has been taken yet.',
    refunded:
      `Your payment of ${amount} could not be applied to your account, because your balance changed in the ` +
      'meantime (it may already be paid). It has been refunded in full to your card; your balance has not changed.',
    already_open:
      props.start.status === 'already_open'
        ? `A payment of ${moneyText(props.start.amount, props.currency)} you started (perhaps in another window) is ` +
          'still in progress, so no new payment was started and no money was taken for this one.'
        : '',
  };
  return (
    <section class="card" role="status">
      <p>{words[props.start.status]}</p>
      <p>
        {props.start.status === 'declined' && (
          <>
            <a href="/portal/pay">Try again</a> ·{' '}
          </>
        )}
        {props.start.status === 'already_open' && (
          <>
            <a href="/portal/pay">See that payment</a> ·{' '}
          </>
        )}
        <a href="/portal/debt">Back to your account</a>
      </p>
    </section>
  );
}

/** After Stripe's card step: the outcome is Stripe's to report (by its webhook), so the page promises nothing more. */
export function PaymentProcessingBody() {
  return (
    <section class="card" role="status">
      <p>
        Thank you. Your payment is being processed. We will confirm once it is complete; your balance will update then.
      </p>
      <BackToAccount />
    </section>
  );
}
