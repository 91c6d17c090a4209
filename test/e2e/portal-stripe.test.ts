/**
 * The portal's pay page with the Stripe adapter, in Chromium: paying starts a PaymentIntent
 * server-side (on a local stand-in for Stripe's API, which cannot be reached from here) and answers with Stripe's
 * card form under a policy that admits Stripe's origins and no inline script; with JavaScript off the page says card
 * payment needs it and shows no button; Stripe's return page promises only "being processed" (the outcome comes by
 * Stripe's webhook, tested in test/integration/stripe-payments.test.ts). Nothing about the debt changes here.
 */
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { RedactedSecret } from '../../core/platform/payment-config';
import { createStripeClient } from '../../core/payments/stripe-client';
import { createStripeProcessor } from '../../core/payments/stripe-processor';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { seriousAxeViolations } from '../support/console-browser';
import { callerFor } from '../support/debt-api';
import { startFakeStripeApi, type FakeStripeApi } from '../support/fake-stripe-api';
import { clearPortalTries, debtWithLink, enterAs, phone, portalShot, PORTAL_SHOTS } from '../support/portal-browser';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';

const PUBLISHABLE_KEY = 'pk_test_portal_pay_page';

describe('Debtor portal: paying by card through Stripe', function () {
  this.timeout(120_000);
  let fake: FakeStripeApi;
  let server: TestServer;

  before(async () => {
    await mkdir(PORTAL_SHOTS, { recursive: true });
    await clearPortalTries();
    fake = await startFakeStripeApi();
    const stripe = createStripeClient({ secretKey: new RedactedSecret('sk_test_portal_pay_page') }, fake.endpoint);
    const paymentProcessor = createStripeProcessor({ db: testDb(), stripe, publishableKey: PUBLISHABLE_KEY });
    server = await startTestServer({ deps: { paymentProcessor } });
  });
  after(async () => {
    await server?.close();
    await fake?.close();
  });

  it('answers the payment with Stripe’s card form for the PaymentIntent it created, and changes nothing yet', async () => {
    const org = await createOrganization(testDb(), { name: 'Cedar Lending', mode: 'production' });
    const api = callerFor(server.baseUrl, await mintKey(org.id));
    const link = await debtWithLink(api, org.id, { originalPrincipal: 300 });

    await withBrowser(async (browser) => {
      const page = await (await phone(browser, false)).newPage();
      await enterAs(page, server.baseUrl, link);
      await page.getByRole('link', { name: 'Make a payment' }).click();
      expect(await page.getByLabel('Card number').count()).to.equal(0); // card details go to Stripe, never to us
      await page.getByLabel('Another amount').check();
      await page.getByLabel('Other amount (AUD)').fill('120.50');
      const answered = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Pay now' }).click();
      const answer = await answered;
      await page.getByRole('heading', { name: 'Confirm your card' }).waitFor();

      const csp = (await answer.allHeaders())['content-security-policy'] ?? '';
      expect(csp).to.match(/script-src [^;]*https:\/\/js\.stripe\.com/);
      expect(csp).not.to.contain('unsafe-inline');
      expect(csp).to.contain("frame-ancestors 'none'");

      const created = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
      expect(created).to.have.length(1);
      expect(created[0]!.form.amount).to.equal('12050');
      expect(created[0]!.form['metadata[debtId]']).to.equal(link.debt.id);
      const intent = fake.intents.get([...fake.intents.keys()][0]!)!;
      const form = page.locator('#stripe-payment-form');
      expect(await form.getAttribute('data-client-secret')).to.equal(intent.client_secret);
      expect(await form.getAttribute('data-publishable-key')).to.equal(PUBLISHABLE_KEY);
      // Stripe sends the debtor back to this host's public address (PUBLIC_BASE_URL), on the return page.
      expect(await form.getAttribute('data-return-url')).to.match(/^https?:\/\/[^/]+\/portal\/pay\/confirming$/);
      // JavaScript is off: the page says so and offers the collector's phone, with no button to press.
      expect(await page.locator('main').innerText()).to.contain('Paying by card needs JavaScript');
      expect(await page.getByRole('button', { name: /^Pay [0-9]/ }).isVisible()).to.equal(false);
      const scriptHref = await page.locator('script[src^="/portal/"]').getAttribute('src');
      const script = await page.request.get(`${server.baseUrl}${scriptHref}`);
      expect(script.status()).to.equal(200);
      expect(script.headers()['content-type']).to.contain('javascript');
      await portalShot(page, 'pay-stripe-card-form-nojs');

      await page.goto(`${server.baseUrl}/portal/pay/confirming?payment_intent=${intent.id}&redirect_status=succeeded`);
      await page.getByRole('heading', { name: 'Payment being processed' }).waitFor();
      expect(await page.locator('main').innerText()).to.contain('We will confirm once it is complete');
      await portalShot(page, 'pay-stripe-returned');

      // With JavaScript on, our script runs under the page's policy; js.stripe.com cannot be reached from this
      // machine, so the form says it could not load and how else to pay (where Stripe loads, its form mounts: the
      // component's own browser test, stripe-confirmation.test.ts, serves a stand-in for Stripe.js).
      const withScript = await (await phone(browser, true)).newPage();
      await enterAs(withScript, server.baseUrl, link);
      // One payment in flight per debt: the pay page shows the card form of the one already started, not a new form.
      await withScript.goto(`${server.baseUrl}/portal/pay`);
      await withScript.getByRole('heading', { name: 'Confirm your card' }).waitFor();
      expect(await withScript.locator('#stripe-payment-form').getAttribute('data-client-secret')).to.equal(
        intent.client_secret,
      );
      await withScript.getByText('The card form could not load').waitFor();
      expect(await withScript.locator('main').innerText()).to.contain('to pay another way');
      expect(await seriousAxeViolations(withScript)).to.deep.equal([]);
      await portalShot(withScript, 'pay-stripe-card-form-unreachable');
    });

    const { body } = await api<{ outstandingPrincipal: string }>('GET', `/v1/debts/${link.debt.id}`);
    expect(body.outstandingPrincipal).to.equal(link.debt.outstandingPrincipal);
    const attempt = await testDb()('payment_attempts')
      .where({ debt_id: link.debt.id })
      .first<{ status: string; processor: string } | undefined>('status', 'processor');
    expect(attempt).to.deep.equal({ status: 'processing', processor: 'stripe' });
  });
});
