/**
 * The test-mode processor against the real lifecycle stack (a Temporal dev server and the real lifecycle worker, the
 * test database): the card that succeeds reports a payment (an Inbound/Succeeded Payment, `payment.received`, a lower
 * balance); the declined card and an unknown number change nothing; the same form submitted twice starts one payment.
 * The card that fails later is tested at its real delay on the time-skipping server
 * (test/workflows/test-payment-failure.test.ts). Also: the factory's choice of processor by mode and configuration.
 */
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { loadConfig } from '../../core/platform/config';
import { createPaymentProcessor } from '../../core/payments/create-processor';
import type { PaymentProcessor, PaymentRequest } from '../../core/payments/processor';
import { createTestModeProcessor, TEST_CARDS } from '../../core/payments/test-mode-processor';
import { inlineDebtBody } from '../support/debt-api';
import { testDebtTriggers, testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('Test-mode payments through the real lifecycle', function () {
  this.timeout(120_000);
  const triggers = testDebtTriggers('production');
  const processor: PaymentProcessor = createTestModeProcessor({ db: testDb(), triggers });

  async function raise(principal = '600') {
    const { organization } = await createTestTenant();
    const debt = await testDb().transaction((trx) =>
      createDebt(trx, organization.id, inlineDebtBody({ originalPrincipal: principal })),
    );
    return { organizationId: organization.id, debtId: debt.id };
  }

  const pay = (
    debt: { organizationId: string; debtId: string },
    card: string,
    overrides: Partial<PaymentRequest> = {},
  ) =>
    processor.start({
      ...debt,
      amount: '150.25',
      currency: 'AUD',
      idempotencyKey: 'form-1',
      testCardNumber: card,
      ...overrides,
    });

  async function snapshot(debtId: string) {
    return {
      debt: await testDb()('debts').where({ id: debtId }).first('status', 'outstanding_principal', 'updated_at'),
      transactions: await testDb()('transactions')
        .where({ debt_id: debtId })
        .select('status', 'amount', 'processor_reference'),
      events: (await testDb()('events').whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId]).orderBy('seq')).map(
        (e: { type: string }) => e.type,
      ),
    };
  }

  it('the succeeding card reports the payment: a Succeeded transaction under the attempt’s reference, payment.received', async () => {
    const debt = await raise();
    const started = await pay(debt, TEST_CARDS.succeeds);
    expect(started.status).to.equal('succeeded');
    const attempt = await testDb()<{ id: string; processor_reference: string }>('payment_attempts')
      .where({ id: started.attemptId })
      .first();
    if (!attempt) throw new Error('no attempt recorded');
    expect(attempt).to.include({ status: 'succeeded', processor: 'test', amount: '150.2500' });
    const after = await snapshot(debt.debtId);
    expect(after.debt).to.include({ status: 'PendingAssignment', outstanding_principal: '449.7500' });
    expect(after.transactions).to.deep.equal([
      { status: 'Succeeded', amount: '150.2500', processor_reference: attempt.processor_reference },
    ]);
    expect(after.events).to.deep.equal(['debt.created', 'payment.received', 'debt.updated']);
  });

  it('the declined card, and a number that is no test card, change nothing but the attempt', async () => {
    const debt = await raise();
    await testLifecycle(); // the debt's workflow need not exist: a decline never asks it
    const before = await snapshot(debt.debtId);
    const declined = await pay(debt, '4000-0000-0000-0002');
    expect(declined).to.deep.include({ status: 'declined', reason: 'card_declined' });
    const unknown = await pay(debt, '5555555555554444', { idempotencyKey: 'form-2' });
    expect(unknown).to.deep.include({ status: 'declined', reason: 'unknown_test_card' });
    expect(await snapshot(debt.debtId)).to.deep.equal(before);
    const attempts = await testDb()('payment_attempts').where({ debt_id: debt.debtId }).orderBy('created_at');
    expect(attempts.map((a: { status: string; decline_reason: string }) => [a.status, a.decline_reason])).to.deep.equal(
      [
        ['declined', 'card_declined'],
        ['declined', 'unknown_test_card'],
      ],
    );
  });

  it('the same idempotency key twice starts one payment: one attempt, one transaction, the same answer', async () => {
    const debt = await raise();
    const [first, second] = await Promise.all([pay(debt, TEST_CARDS.succeeds), pay(debt, TEST_CARDS.succeeds)]);
    const third = await pay(debt, TEST_CARDS.succeeds);
    expect(second).to.deep.equal(first);
    expect(third).to.deep.equal(first);
    expect(await testDb()('payment_attempts').where({ debt_id: debt.debtId })).to.have.length(1);
    const after = await snapshot(debt.debtId);
    expect(after.transactions).to.have.length(1);
    expect(after.events.filter((type) => type === 'payment.received')).to.have.length(1);
    expect(after.debt?.outstanding_principal).to.equal('449.7500');
  });

  it('createPaymentProcessor: test mode on the sandbox and in development, Stripe only on production when configured, none on an unconfigured production', async () => {
    const stack = await testLifecycle();
    const common = { db: testDb(), triggers, temporal: stack.client('production') };
    const kindOf = (mode: 'production' | 'sandbox', env: Record<string, string>) =>
      createPaymentProcessor({ ...common, mode, payments: loadConfig({ ...env, API_MODE: mode }).payments })?.kind;
    const stripeEnv = {
      APP_ENV: 'test',
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_factory',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_factory',
      STRIPE_WEBHOOK_SECRET: 'whsec_factory',
    };
    expect(kindOf('production', { APP_ENV: 'test' })).to.equal('test');
    expect(kindOf('production', stripeEnv)).to.equal('stripe');
    // A real production that names no processor takes no online payments: a test card must never pay a real debt.
    const live = { APP_ENV: 'production', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(kindOf('production', live)).to.equal(undefined);
    expect(() => kindOf('production', { ...live, PAYMENT_PROCESSOR: 'test' })).to.throw(/test is refused/);
    expect(kindOf('sandbox', live)).to.equal('test');
    // Even handed a Stripe configuration, the sandbox never takes real payments.
    const stripe = loadConfig(stripeEnv);
    expect(createPaymentProcessor({ ...common, mode: 'sandbox', payments: stripe.payments })?.kind).to.equal('test');
  });
});
