/**
 * The Stripe card form component (web/portal/stripe-confirmation.tsx) in Chromium, on a bare page that renders it
 * with `stripePageCsp()` (the portal's pay page wires it in; this proves the component and its CSP on their own).
 * js.stripe.com cannot be reached from here, and Stripe's script is Stripe's: where a test needs one, the route
 * serves a stand-in for Stripe.js (an external service we cannot run) that records what our script asks of it.
 * Proves: our same-origin script runs under the CSP (no inline script), mounts Stripe's form and confirms the
 * PaymentIntent with its client secret and return URL; with Stripe unreachable, or JavaScript off, the page says so.
 * Screenshots at a phone's 360 px in test-artifacts/portal/; axe-core finds no serious or critical violation.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { h, type VNode } from 'preact';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { loadWebAssets, PORTAL_STYLESHEET } from '../../web/assets';
import { sendPage, setPageHeaders } from '../../web/page';
import { loadStripeConfirmationAsset } from '../../web/portal/stripe-confirmation-script';
import { STRIPE_JS_URL, StripeConfirmation, stripePageCsp } from '../../web/portal/stripe-confirmation';
import { withBrowser } from '../support/browser';
import { seriousAxeViolations } from '../support/console-browser';

const SHOTS = path.join(PROJECT_ROOT, 'test-artifacts', 'portal');
const CLIENT_SECRET = 'pi_3Test_secret_abc';
const RETURN_URL = 'http://127.0.0.1/portal/payment-processing';

/** A stand-in for Stripe.js: records the calls our script makes, as `window.stripeCalls`. */
const FAKE_STRIPE_JS = `
window.stripeCalls = [];
window.Stripe = function (key) {
  window.stripeCalls.push(['Stripe', key]);
  return {
    elements: function (options) {
      window.stripeCalls.push(['elements', options.clientSecret]);
      return {
        create: function (type) {
          window.stripeCalls.push(['create', type]);
          var handlers = {};
          return {
            mount: function (selector) {
              window.stripeCalls.push(['mount', selector]);
              var frame = document.createElement('p');
              frame.textContent = 'Stripe card form';
              document.querySelector(selector).appendChild(frame);
              setTimeout(function () { handlers.ready && handlers.ready(); }, 0);
            },
            on: function (name, handler) { handlers[name] = handler; },
          };
        },
      };
    },
    confirmPayment: function (options) {
      window.stripeCalls.push(['confirmPayment', options.confirmParams.return_url]);
      return Promise.resolve({ error: { message: 'Your card was declined.' } });
    },
  };
};`;

describe('The Stripe card form component in Chromium', function () {
  this.timeout(60_000);
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const css = loadWebAssets(PORTAL_STYLESHEET);
    const script = loadStripeConfirmationAsset();
    const app = new Koa();
    app.use(css.serve);
    app.use(script.serve);
    app.use((ctx) => {
      setPageHeaders(ctx, stripePageCsp()); // as the portal sets them for its card page
      sendPage(
        ctx,
        h(
          'html',
          { lang: 'en' },
          h(
            'head',
            null,
            h('meta', { charSet: 'utf-8' }),
            h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
            h('title', null, 'Pay by card'),
            h('link', { rel: 'stylesheet', href: css.stylesheetHref }),
          ),
          h(
            'body',
            null,
            h(
              'main',
              { id: 'main' },
              h('h1', null, 'Pay by card'),
              h(StripeConfirmation, {
                clientSecret: CLIENT_SECRET,
                publishableKey: 'pk_test_portal',
                returnUrl: RETURN_URL,
                scriptHref: script.href,
                amountLabel: '150.25 AUD',
                otherWaysToPay: 'Call Acme Collections on 1300 000 000 to pay another way.',
              }),
            ),
          ),
        ) as unknown as VNode,
      );
    });
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A phone-sized page whose requests to Stripe get `stripeJs` (or fail, as where the network does not allow). */
  async function open(context: BrowserContext, stripeJs?: string): Promise<{ page: Page; cspViolations: string[] }> {
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.route('https://*.stripe.com/**', (route) =>
      stripeJs && route.request().url() === STRIPE_JS_URL
        ? route.fulfill({ contentType: 'text/javascript', body: stripeJs })
        : route.abort(),
    );
    await page.goto(`${baseUrl}/pay`);
    return { page, cspViolations };
  }

  const phone = (browser: Browser, options: { javaScriptEnabled?: boolean; bypassCSP?: boolean } = {}) =>
    browser.newContext({ viewport: { width: 360, height: 740 }, ...options });

  it('mounts Stripe’s form with the client secret and confirms the PaymentIntent with the return URL, under the CSP', async () => {
    await withBrowser(async (browser) => {
      const { page, cspViolations } = await open(await phone(browser), FAKE_STRIPE_JS);
      const button = page.getByRole('button', { name: 'Pay 150.25 AUD' });
      await button.waitFor({ state: 'visible' });
      await page.screenshot({ path: path.join(SHOTS, 'stripe-card-form.png'), fullPage: true });
      await button.click();
      await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
      const calls = await page.evaluate(() => (window as unknown as { stripeCalls: unknown[] }).stripeCalls);
      expect(calls).to.deep.equal([
        ['Stripe', 'pk_test_portal'],
        ['elements', CLIENT_SECRET],
        ['create', 'payment'],
        ['mount', '#stripe-payment-element'],
        ['confirmPayment', RETURN_URL],
      ]);
      expect(await button.isEnabled(), 'the debtor may try again').to.equal(true);
      expect(cspViolations).to.deep.equal([]);
    });
  });

  it('says the card form could not load where Stripe cannot be reached, with the other way to pay', async () => {
    await withBrowser(async (browser) => {
      const { page, cspViolations } = await open(await phone(browser));
      const alert = page.getByRole('alert');
      await alert.filter({ hasText: 'The card form could not load.' }).waitFor();
      expect(await alert.textContent()).to.include('Call Acme Collections on 1300 000 000 to pay another way.');
      expect(await page.locator('button[type="submit"]').isHidden(), 'nothing to submit').to.equal(true);
      expect(cspViolations).to.deep.equal([]);
      await page.screenshot({ path: path.join(SHOTS, 'stripe-card-form-unavailable.png'), fullPage: true });

      const { page: audited } = await open(await phone(browser, { bypassCSP: true }));
      await audited.getByRole('alert').waitFor();
      expect(await seriousAxeViolations(audited)).to.deep.equal([]);
    });
  });

  it('with JavaScript off, says paying by card needs it and how else to pay', async () => {
    await withBrowser(async (browser) => {
      const { page } = await open(await phone(browser, { javaScriptEnabled: false }));
      const text = await page.locator('main').innerText();
      expect(text).to.include('Paying by card needs JavaScript, so that your card details go only to Stripe.');
      expect(text).to.include('Call Acme Collections on 1300 000 000 to pay another way.');
      expect(await page.locator('button[type="submit"]').isHidden(), 'nothing to submit').to.equal(true);
      await page.screenshot({ path: path.join(SHOTS, 'stripe-card-form-no-javascript.png'), fullPage: true });
    });
  });

  it('stripePageCsp adds exactly Stripe’s origins to the pages’ policy, and no unsafe-inline', () => {
    const csp = stripePageCsp();
    expect(csp).to.include("script-src 'self' https://js.stripe.com https://*.js.stripe.com");
    expect(csp).to.include('frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com');
    expect(csp).to.include('connect-src https://api.stripe.com');
    expect(csp).to.include("img-src 'self' https://*.stripe.com");
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.include("frame-ancestors 'none'");
    expect(csp).not.to.include('unsafe');
  });
});
