/**
 * Stripe's currency rules, not ISO 4217's minor units (core/payments/stripe-currencies.ts), in both directions: the
 * PaymentIntent's `amount` the adapter sends to the local stand-in for Stripe's API (which answers amounts as Stripe
 * does, with its own copy of Stripe's rules), and the amount check of Stripe's signed webhook, against the real API
 * app, the real lifecycle worker and the test database. An amount or currency Stripe cannot take is a clear portal
 * page, with no attempt recorded and nothing asked of Stripe.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';

import type { PaymentProcessor } from '../../core/payments/processor';
import type { Stripe } from '../../core/payments/stripe-client';

import type { TestServer } from '../support/app';
import { startStripeStack, type StripeStack } from '../support/stripe-stack';
import { inlineDebtBody } from '../support/debt-api';
import { postStripeEvent, stripeEvent, type FakeStripeApi } from '../support/fake-stripe-api';
import { visitPortal } from '../support/portal-http';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

const SECRET_KEY = `sk_test_${randomUUID().replace(/-/g, '')}`;
const WEBHOOK_SECRET = `whsec_${randomUUID().replace(/-/g, '')}`;
const PUBLISHABLE_KEY = 'pk_test_currencies';

describe('Stripe: amounts in Stripe’s minor units, both ways', function () {
  this.timeout(120_000);
  let fake: FakeStripeApi;
  let server: TestServer;
  let stripe: Stripe;
  let processor: PaymentProcessor;

  let stack: StripeStack;

  before(async () => {
    stack = await startStripeStack({
      secretKey: SECRET_KEY,
      publishableKey: PUBLISHABLE_KEY,
      webhookSecret: WEBHOOK_SECRET,
    });
    ({ fake, server, stripe, processor } = stack);
  });
  after(() => stack?.close());

  async function raise(currency: string, principal: string) {
    const { organization } = await createTestTenant();
    const body = inlineDebtBody({ currency, originalPrincipal: principal });
    const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, body));
    return { organizationId: organization.id, debtId: debt.id, debtorId: debt.debtorId };
  }

  async function deliver(type: string, intent: object) {
    const payload = stripeEvent(type, intent);
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const res = await postStripeEvent(server.baseUrl, payload, signature);
    expect(res.status).to.equal(200);
    return res.body.outcome as string;
  }

  const attempts = (debtId: string) =>
    testDb()<{ debt_id: string; status: string; processor_reference: string }>('payment_attempts').where({
      debt_id: debtId,
    });
  const createRequests = (debtId: string) =>
    fake.requests.filter((r) => r.path === '/v1/payment_intents' && r.form['metadata[debtId]'] === debtId);

  // [currency, amount paid, Stripe's `amount`, ISO's minor units where they differ (a webhook carrying those is not ours)]
  const CASES: [string, string, number, number | null][] = [
    ['AUD', '150.25', 15025, null], // two-decimal
    ['MGA', '5000', 5000, 500000], // zero-decimal at Stripe, two decimals in ISO
    ['JPY', '1200', 1200, null], // zero-decimal in both
    ['KWD', '10.25', 10250, null], // three-decimal, ending in 0
    ['HUF', '1500.5', 150050, null], // two decimals for charges (Stripe's whole-unit rule is for payouts)
    ['TWD', '300', 30000, null], // likewise
    ['UGX', '25000', 25000, null], // zero-decimal at Stripe
    ['ISK', '1200', 120000, 1200], // zero decimals in ISO, two at Stripe (whole krónur × 100)
  ];

  for (const [currency, amount, stripeAmount, isoAmount] of CASES) {
    it(`${currency}: ${amount} is sent as ${stripeAmount}, and the webhook's ${stripeAmount} reads back as ${amount}`, async () => {
      const debt = await raise(currency, '100000');
      const started = await processor.start({ ...debt, amount, currency, idempotencyKey: `form-${currency}` });
      expect(started.status).to.equal('requires_confirmation');
      const [request] = createRequests(debt.debtId);
      expect(request?.form).to.include({ amount: String(stripeAmount), currency: currency.toLowerCase() });
      const [attempt] = await attempts(debt.debtId);
      const intent = fake.intents.get(attempt!.processor_reference)!;
      expect(intent.amount).to.equal(stripeAmount);
      if (isoAmount !== null) {
        // A PaymentIntent for the ISO reading of the amount is another charge: never reported as this one.
        expect(
          await deliver('payment_intent.succeeded', { ...intent, amount: isoAmount, status: 'succeeded' }),
        ).to.equal('ignored');
        expect((await attempts(debt.debtId))[0]?.status).to.equal('processing');
      }
      expect(await deliver('payment_intent.succeeded', { ...intent, status: 'succeeded' })).to.equal('settled');
      const transactions = await testDb()('transactions').where({ debt_id: debt.debtId }).select('amount', 'status');
      expect(transactions.map((t: { amount: string }) => Number(t.amount))).to.deep.equal([Number(amount)]);
    });
  }

  it('refuses a three-decimal amount Stripe cannot charge (not ending in 0) before recording or asking anything', async () => {
    const debt = await raise('KWD', '50');
    const failure = await processor
      .start({ ...debt, amount: '10.005', currency: 'KWD', idempotencyKey: 'form-kwd' })
      .catch((err: unknown) => err);
    expect(failure).to.include({ status: 400, code: 'invalid_request' });
    expect(await attempts(debt.debtId)).to.deep.equal([]);
    expect(createRequests(debt.debtId)).to.deep.equal([]);
  });

  it('the portal says a KWD balance of 10.005 cannot be paid exactly by card, and takes 10.000 of it', async () => {
    const debt = await raise('KWD', '10.005');
    const portal = await visitPortal(server, debt);
    const form = await portal.get('/portal/pay');
    expect(form.status).to.equal(200);
    const attempt = /name="attempt" value="([^"]+)"/.exec(form.html)![1]!;
    const full = await portal.post('/portal/pay', { attempt, choice: 'full', amount: '' });
    expect(full.status).to.equal(400);
    expect(full.html).to.contain('cannot be paid by card: card payments in KWD go in steps of 0.010');
    const odd = await portal.post('/portal/pay', { attempt, choice: 'other', amount: '5.001' });
    expect(odd.status).to.equal(400);
    expect(await attempts(debt.debtId)).to.deep.equal([]);
    expect(createRequests(debt.debtId)).to.deep.equal([]);
    const paid = await portal.post('/portal/pay', { attempt, choice: 'other', amount: '10' });
    expect(paid.status).to.equal(200);
    expect(paid.html).to.contain('Confirm your card');
    expect(createRequests(debt.debtId).map((r) => r.form.amount)).to.deep.equal(['10000']);
  });

  it('a currency Stripe does not charge (IQD): the pay page says so, and nothing is recorded or sent', async () => {
    const debt = await raise('IQD', '500');
    const portal = await visitPortal(server, debt);
    const form = await portal.get('/portal/pay');
    expect(form.status).to.equal(200);
    expect(form.html).to.contain('Card payments in IQD are not available');
    expect(form.html).not.to.contain('Pay now');
    const failure = await processor
      .start({ ...debt, amount: '500', currency: 'IQD', idempotencyKey: 'form-iqd' })
      .catch((err: unknown) => err);
    expect(failure).to.include({ status: 400, code: 'invalid_request' });
    expect(await attempts(debt.debtId)).to.deep.equal([]);
    expect(createRequests(debt.debtId)).to.deep.equal([]);
  });
});
