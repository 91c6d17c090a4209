/**
 * The Stripe adapter and Stripe's webhook ingest, against the real lifecycle stack (a Temporal dev server and the
 * real lifecycle worker), the test database and the real API app with PAYMENT_PROCESSOR=stripe. Stripe's API cannot
 * be reached from here: the adapter's calls go to a local stand-in (test/support/fake-stripe-api.ts) that checks what
 * the `stripe` library sent. The webhooks are signed by the `stripe` library's own test-header helper and verified by
 * its `constructEvent`, for real.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { RedactedSecret } from '../../core/platform/payment-config';
import { PENDING_REFERENCE_PREFIX, recordAttempt } from '../../core/payments/attempts';
import type { PaymentProcessor } from '../../core/payments/processor';
import { createStripeClient, type Stripe } from '../../core/payments/stripe-client';
import { createStripeProcessor, stripeIdempotencyKey } from '../../core/payments/stripe-processor';
import { STRIPE_WEBHOOK_PATH } from '../../api/routes/stripe-webhook';
import type { TestServer } from '../support/app';
import { startStripeStack, type StripeStack } from '../support/stripe-stack';
import { inlineDebtBody } from '../support/debt-api';
import { postStripeEvent, startFakeStripeApi, stripeEvent, type FakeStripeApi } from '../support/fake-stripe-api';
import { testDebtTriggers } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

const SECRET_KEY = `sk_test_${randomUUID().replace(/-/g, '')}`;
const WEBHOOK_SECRET = `whsec_${randomUUID().replace(/-/g, '')}`;
const PUBLISHABLE_KEY = 'pk_test_portal';

interface Row {
  debt_id: string;
  id: string;
  status: string;
  amount: string;
  processor_reference: string;
  report_refusal: string | null;
}

describe('Stripe: PaymentIntents created server-side, webhooks verified and reported once', function () {
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

  async function raise(overrides: Record<string, unknown> = {}) {
    const { organization } = await createTestTenant();
    const body = inlineDebtBody({ originalPrincipal: '600', ...overrides });
    const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, body));
    return { organizationId: organization.id, debtId: debt.id, body };
  }

  async function startPayment(debt: { organizationId: string; debtId: string }, amount = '150.25', currency = 'AUD') {
    const started = await processor.start({ ...debt, amount, currency, idempotencyKey: 'form-1' });
    if (started.status !== 'requires_confirmation')
      throw new Error(`expected requires_confirmation: ${started.status}`);
    const attempt = await attemptRow(started.attemptId);
    return { started, attempt, intent: fake.intents.get(attempt.processor_reference)! };
  }

  const attemptRow = async (id: string) => (await testDb()<Row>('payment_attempts').where({ id }).first())!;

  const event = stripeEvent;
  const deliver = (
    payload: string,
    signature = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
  ) => postStripeEvent(server.baseUrl, payload, signature);

  async function ledger(debtId: string) {
    return {
      transactions: await testDb()('transactions')
        .where({ debt_id: debtId })
        .orderBy('created_at')
        .select('direction', 'status', 'type', 'amount', 'processor_reference'),
      events: (await testDb()('events').whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId]).orderBy('seq')).map(
        (e: { type: string }) => e.type,
      ),
      debt: await testDb()('debts').where({ id: debtId }).first('status', 'outstanding_principal'),
    };
  }

  it('creates the PaymentIntent server-side: minor units, card only, ids-only metadata, the attempt’s idempotency key', async () => {
    const debt = await raise();
    const { started, attempt, intent } = await startPayment(debt);
    expect(started).to.deep.equal({
      status: 'requires_confirmation',
      attemptId: attempt.id,
      clientSecret: intent.client_secret,
      publishableKey: PUBLISHABLE_KEY,
    });
    expect(attempt).to.include({ status: 'processing', processor_reference: intent.id, amount: '150.2500' });
    const created = fake.requests.filter((r) => r.method === 'POST' && r.form['metadata[attemptId]'] === attempt.id);
    expect(created).to.have.length(1);
    const [request] = created;
    expect(request!.path).to.equal('/v1/payment_intents');
    expect(request!.headers.authorization).to.equal(`Bearer ${SECRET_KEY}`);
    expect(request!.headers['idempotency-key']).to.equal(stripeIdempotencyKey(attempt.id));
    expect(request!.form).to.deep.equal({
      amount: '15025',
      currency: 'aud',
      'allowed_payment_method_types[0]': 'card',
      'metadata[organizationId]': debt.organizationId,
      'metadata[debtId]': debt.debtId,
      'metadata[attemptId]': attempt.id,
    });
    // No debtor data leaves for Stripe.
    const sent = JSON.stringify(request!.form);
    for (const field of ['debtorEmail', 'debtorFirstName', 'debtorLastName'])
      expect(sent).not.to.include(String(debt.body[field]));

    // The same form again: the same PaymentIntent (retrieved, not created twice) and the same answer.
    const requestsBefore = fake.requests.length;
    expect(
      await processor.start({ ...debt, amount: '150.25', currency: 'AUD', idempotencyKey: 'form-1' }),
    ).to.deep.equal(started);
    expect(fake.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`)).to.deep.equal([
      `GET /v1/payment_intents/${intent.id}`,
    ]);
    expect(await testDb()('payment_attempts').where({ debt_id: debt.debtId })).to.have.length(1);
  });

  it('answers service_unavailable while Stripe cannot be reached, and the retried form then creates its PaymentIntent', async () => {
    const debt = await raise();
    const closed = await startFakeStripeApi();
    await closed.close(); // its port now refuses connections
    const unreachable = createStripeProcessor({
      db: testDb(),
      stripe: createStripeClient({ secretKey: new RedactedSecret(SECRET_KEY) }, closed.endpoint),
      publishableKey: PUBLISHABLE_KEY,
    });
    const request = { ...debt, amount: '20', currency: 'AUD', idempotencyKey: 'form-offline' };
    const failure = await unreachable.start(request).catch((err: unknown) => err);
    expect(failure).to.include({ code: 'service_unavailable', status: 503 });
    const [pending] = await testDb()<Row>('payment_attempts').where({ debt_id: debt.debtId });
    expect(pending?.processor_reference.startsWith(PENDING_REFERENCE_PREFIX)).to.equal(true);
    const retried = await processor.start(request);
    expect(retried).to.include({ status: 'requires_confirmation', attemptId: pending!.id });
    expect((await attemptRow(pending!.id)).processor_reference).to.match(/^pi_fake/);
  });

  it('payment_intent.succeeded reports the payment once, even delivered twice: one transaction, one payment.received', async () => {
    const debt = await raise();
    const { attempt, intent } = await startPayment(debt);
    const payload = event('payment_intent.succeeded', { ...intent, status: 'succeeded' });
    const first = await deliver(payload);
    expect(first).to.deep.include({ status: 200, body: { received: true, outcome: 'settled' } });
    const again = await deliver(payload);
    expect(again).to.deep.include({ status: 200, body: { received: true, outcome: 'duplicate' } });
    // Stripe may also send a new event (another id) for the same PaymentIntent: still once.
    expect(
      (await deliver(event('payment_intent.succeeded', { ...intent, status: 'succeeded' }))).body.outcome,
    ).to.equal('duplicate');
    expect((await attemptRow(attempt.id)).status).to.equal('succeeded');
    const after = await ledger(debt.debtId);
    expect(after.transactions).to.deep.equal([
      {
        direction: 'Inbound',
        status: 'Succeeded',
        type: 'Payment',
        amount: '150.2500',
        processor_reference: intent.id,
      },
    ]);
    expect(after.events).to.deep.equal(['debt.created', 'payment.received', 'debt.updated']);
    expect(after.debt).to.include({ outstanding_principal: '449.7500' });
  });

  it('payment_intent.payment_failed records a Failed transaction and no payment.received; another card may then succeed', async () => {
    const debt = await raise();
    const { attempt, intent } = await startPayment(debt);
    expect(
      (await deliver(event('payment_intent.processing', { ...intent, status: 'processing' }))).body.outcome,
    ).to.equal('ignored');
    const failed = await deliver(
      event('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method' }),
    );
    expect(failed).to.deep.include({ status: 200, body: { received: true, outcome: 'settled' } });
    expect((await attemptRow(attempt.id)).status).to.equal('failed');
    const afterFailure = await ledger(debt.debtId);
    expect(afterFailure.transactions.map((t: { status: string }) => t.status)).to.deep.equal(['Failed']);
    expect(afterFailure.events).to.deep.equal(['debt.created']);
    expect(afterFailure.debt).to.include({ outstanding_principal: '600.0000' });

    // The debtor tries another card on the same PaymentIntent, which succeeds.
    expect(
      (await deliver(event('payment_intent.succeeded', { ...intent, status: 'succeeded' }))).body.outcome,
    ).to.equal('settled');
    const after = await ledger(debt.debtId);
    expect(after.transactions.map((t: { status: string }) => t.status)).to.deep.equal(['Failed', 'Succeeded']);
    expect(after.events).to.deep.equal(['debt.created', 'payment.received', 'debt.updated']);
    // A late failure after that success changes nothing.
    expect((await deliver(event('payment_intent.payment_failed', intent))).body.outcome).to.equal('ignored');
    expect(await ledger(debt.debtId)).to.deep.equal(after);
  });

  it('refuses a bad, missing or foreign signature, or a tampered body, with 400 problem+json, changing nothing', async () => {
    const debt = await raise();
    const { attempt, intent } = await startPayment(debt);
    const payload = event('payment_intent.succeeded', { ...intent, status: 'succeeded' });
    const foreign = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someoneelse' });
    const stale = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    for (const [payloadSent, signature] of [
      [payload, foreign],
      [payload, stale],
      [payload, ''],
      [payload.replace('"livemode":false', '"livemode":true'), good],
    ] as const) {
      const res = await deliver(payloadSent, signature);
      expect(res.status).to.equal(400);
      expect(res.type).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ title: 'invalid_request', status: 400 });
    }
    expect((await attemptRow(attempt.id)).status).to.equal('processing');
    expect((await ledger(debt.debtId)).transactions).to.deep.equal([]);
    const get = await fetch(`${server.baseUrl}${STRIPE_WEBHOOK_PATH}`);
    expect(get.status).to.equal(405);
  });

  it('answers 200 ignored for a PaymentIntent it has no attempt for, and logs it without secrets', async () => {
    const unknown = { id: 'pi_not_ours_123', object: 'payment_intent', amount: 100, currency: 'aud', metadata: {} };
    const payload = event('payment_intent.succeeded', unknown);
    const res = await deliver(payload);
    expect(res).to.deep.include({ status: 200, body: { received: true, outcome: 'ignored' } });
    const line = server.logLines().find((l) => l.msg === 'stripe event ingested' || l.msg === 'stripe event ignored');
    expect(
      server.logLines().some((l) => l.reason === 'unknown_reference' && l.msg === 'stripe event ignored'),
    ).to.equal(true);
    expect(line).to.not.equal(undefined);
    // Another type altogether is acknowledged and ignored too.
    expect((await deliver(event('charge.refunded', { id: 'ch_1', object: 'charge' }))).body.outcome).to.equal(
      'ignored',
    );
  });

  it('matches an event that arrives before the attempt took the PaymentIntent’s id by the ids in its metadata', async () => {
    const debt = await raise();
    const attemptId = randomUUID();
    await recordAttempt(testDb(), {
      id: attemptId,
      ...debt,
      processor: 'stripe',
      processorReference: `${PENDING_REFERENCE_PREFIX}${attemptId}`,
      idempotencyKey: 'form-early',
      amount: '100',
      currency: 'AUD',
    });
    const intent = {
      id: `pi_early_${attemptId.slice(0, 8)}`,
      object: 'payment_intent',
      amount: 10000,
      currency: 'aud',
      status: 'succeeded',
      metadata: { organizationId: debt.organizationId, debtId: debt.debtId, attemptId },
    };
    expect((await deliver(event('payment_intent.succeeded', intent))).body.outcome).to.equal('settled');
    expect(await attemptRow(attemptId)).to.include({ status: 'succeeded', processor_reference: intent.id });
    expect((await ledger(debt.debtId)).events).to.include('payment.received');
    // Metadata naming another tenant's attempt finds nothing.
    const other = await createTestTenant();
    const forged = {
      ...intent,
      id: 'pi_forged_1',
      metadata: { ...intent.metadata, organizationId: other.organization.id },
    };
    expect((await deliver(event('payment_intent.succeeded', forged))).body.outcome).to.equal('ignored');
  });

  it('records a success the debt refuses (closed meanwhile) on the attempt, refunds it, answers 200 and does not report again', async () => {
    const debt = await raise();
    const { attempt, intent } = await startPayment(debt);
    await testDebtTriggers('production').close(debt.organizationId, debt.debtId);
    intent.status = 'succeeded'; // Stripe's own record of the PaymentIntent, which its Refunds API checks
    const payload = event('payment_intent.succeeded', { ...intent, status: 'succeeded' });
    expect(await deliver(payload)).to.deep.include({ status: 200, body: { received: true, outcome: 'settled' } });
    const row = await attemptRow(attempt.id);
    expect(row.status).to.equal('succeeded');
    expect(row.report_refusal).to.match(/^invalid_state: /);
    expect((await ledger(debt.debtId)).transactions).to.deep.equal([]);
    expect((await deliver(payload)).body.outcome).to.equal('duplicate');
    // The payment went back to the debtor, once (test/integration/payment-refunds.test.ts tests refunds in full).
    expect([...fake.refunds.values()].filter((r) => r.payment_intent === intent.id)).to.have.length(1);
    expect(server.logLines().some((l) => l.attemptId === attempt.id && l.refusedWith === 'invalid_state')).to.equal(
      true,
    );
  });

  it('never logged the secret key, the webhook secret or a signature', () => {
    const log = server.rawLog();
    expect(log).to.include('stripe event');
    expect(log).not.to.include(SECRET_KEY);
    expect(log).not.to.include(WEBHOOK_SECRET);
    expect(log).not.to.include('v1=');
  });
});
