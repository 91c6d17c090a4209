/**
 * The browser side of the Stripe card form (./stripe-confirmation.tsx), served from this origin as a file of its own
 * (`/portal/assets/stripe-confirmation.<hash>.js`), never inline, so the page keeps a CSP without 'unsafe-inline'.
 * It mounts Stripe's Payment Element (card only: the PaymentIntent allows cards only) into the form, and on submit
 * asks Stripe to confirm the PaymentIntent; Stripe then sends the debtor to the return URL. The outcome reaches the
 * debt only through Stripe's webhook. Plain ES5 in a string: it is not compiled or linted as server code.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';

export const STRIPE_CONFIRMATION_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('stripe-payment-form');
  if (!form) return;
  var message = document.getElementById('stripe-payment-message');
  var submit = document.getElementById('stripe-payment-submit');
  var button = submit.querySelector('button');
  function show(text) {
    message.textContent = text;
    message.hidden = false;
  }
  if (typeof window.Stripe !== 'function') {
    show(form.getAttribute('data-unavailable-message'));
    return;
  }
  var stripe = window.Stripe(form.getAttribute('data-publishable-key'));
  var elements = stripe.elements({ clientSecret: form.getAttribute('data-client-secret') });
  var payment = elements.create('payment', { layout: 'tabs' });
  payment.mount('#stripe-payment-element');
  payment.on('ready', function () {
    submit.hidden = false;
  });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    message.hidden = true;
    stripe
      .confirmPayment({ elements: elements, confirmParams: { return_url: form.getAttribute('data-return-url') } })
      .then(function (result) {
        if (result.error) {
          show(result.error.message || form.getAttribute('data-failed-message'));
          button.disabled = false;
        }
      });
  });
})();
`;

export const STRIPE_ASSETS_PREFIX = '/portal/assets/';

export interface StripeConfirmationAsset {
  /** The script's URL, named by its content hash so it may be cached for a year. */
  href: string;
  serve: Middleware;
}

export function loadStripeConfirmationAsset(): StripeConfirmationAsset {
  const body = Buffer.from(STRIPE_CONFIRMATION_SCRIPT, 'utf8');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const href = `${STRIPE_ASSETS_PREFIX}stripe-confirmation.${hash}.js`;
  return {
    href,
    serve: async (ctx, next) => {
      if (ctx.path !== href || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
        await next();
        return;
      }
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = body;
    },
  };
}
