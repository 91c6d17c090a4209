/**
 * The Stripe card form the portal's pay page shows when the processor answers `requires_confirmation`
 * (core/payments/stripe-processor.ts). Card details are typed into Stripe's own iframe, loaded from Stripe's script
 * (js.stripe.com/v3, as Stripe requires for PCI: never self-hosted), and go straight to Stripe; our pages never see
 * them. Our part is a same-origin script (./stripe-confirmation-script.ts) that mounts Stripe's form and confirms the
 * PaymentIntent. Without JavaScript, or where js.stripe.com cannot be reached, the page says so instead of a form.
 *
 * The page that renders this needs a wider Content-Security-Policy than the pages' default (web/page.ts PAGE_CSP):
 * `stripePageCsp()` adds exactly what Stripe documents for Stripe.js and the Payment Element (docs/payments.md).
 */
import { PAGE_CSP } from '../page';
import { CsrfField } from '../layout';

/** Stripe's script: always loaded from Stripe (https://docs.stripe.com/js/including). */
export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';
/** Drops the payment shown, before its card is confirmed, for the pay form again (web/portal/pay-routes.tsx). */
export const ANOTHER_AMOUNT_PATH = '/portal/pay/another-amount';

/** What Stripe.js needs beyond PAGE_CSP, per directive (Stripe's CSP guidance for Stripe.js and Elements). */
export const STRIPE_CSP_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  'script-src': ["'self'", 'https://js.stripe.com', 'https://*.js.stripe.com'],
  'frame-src': ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
  'connect-src': ['https://api.stripe.com'],
  'img-src': ['https://*.stripe.com'],
};

/** PAGE_CSP (or `base`) with STRIPE_CSP_ADDITIONS merged in: for the one page that shows the card form. */
export function stripePageCsp(base: string = PAGE_CSP): string {
  const directives = new Map<string, string[]>(
    base.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
  for (const [name, values] of Object.entries(STRIPE_CSP_ADDITIONS)) {
    const current = (directives.get(name) ?? []).filter((value) => value !== "'none'");
    directives.set(name, [...new Set([...current, ...values])]);
  }
  return [...directives].map(([name, values]) => [name, ...values].join(' ')).join('; ');
}

export interface StripeConfirmationProps {
  /** From `PaymentStart` (`requires_confirmation`): the PaymentIntent's client secret and the publishable key. */
  clientSecret: string;
  publishableKey: string;
  /** Where Stripe sends the debtor after confirming (absolute URL): the portal's "payment processing" page. */
  returnUrl: string;
  /** `loadStripeConfirmationAsset().href`. */
  scriptHref: string;
  /** The amount as the debtor reads it, e.g. "150.25 AUD", for the button. */
  amountLabel: string;
  /** A sentence saying how else to pay, e.g. "Call Acme Collections on 1300 000 000 to pay another way." */
  otherWaysToPay: string;
  /** The session's CSRF token: offers to drop this payment, unconfirmed, and choose another amount. */
  csrfToken?: string;
}

export function StripeConfirmation(props: StripeConfirmationProps) {
  return (
    <section class="stripe-confirmation" aria-labelledby="stripe-card-heading">
      <h2 id="stripe-card-heading">Card details</h2>
      <p>Your card details go straight to our payment processor, Stripe. We never see or store them.</p>
      <form
        id="stripe-payment-form"
        data-publishable-key={props.publishableKey}
        data-client-secret={props.clientSecret}
        data-return-url={props.returnUrl}
        data-unavailable-message={`The card form could not load. Check your connection and reload this page. ${props.otherWaysToPay}`}
        data-failed-message="The payment did not go through. Check the card details and try again."
      >
        <div id="stripe-payment-element" />
        <p id="stripe-payment-message" class="flash flash-danger" role="alert" hidden />
        {/* Shown by the script once Stripe's form is ready: without it there is nothing to submit. (The wrapper
            carries `hidden`, as stylesheets commonly give a form's submit button a display of its own.) */}
        <div id="stripe-payment-submit" hidden>
          <button type="submit" class="primary">
            Pay {props.amountLabel}
          </button>
        </div>
      </form>
      <noscript>
        <p class="flash flash-warning">
          Paying by card needs JavaScript, so that your card details go only to Stripe. {props.otherWaysToPay}
        </p>
      </noscript>
      {props.csrfToken && (
        // A plain form: it works with JavaScript off, and a card form left unconfirmed never blocks paying.
        <form method="post" action={ANOTHER_AMOUNT_PATH}>
          <CsrfField token={props.csrfToken} />
          <p>
            Not this amount?{' '}
            <button type="submit" class="link">
              Pay a different amount
            </button>
          </p>
        </form>
      )}
      <script src={STRIPE_JS_URL} />
      <script src={props.scriptHref} defer />
    </section>
  );
}
