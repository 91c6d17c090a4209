/** The payment processor part of the configuration (core/platform/payment-config.ts), through loadConfig. */
import { inspect } from 'node:util';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../core/platform/config';

const base = { APP_ENV: 'test' };
const SECRET = 'sk_test_51NotARealKeyButLongEnoughToLookLikeOne';
const WHSEC = 'whsec_notarealsigningsecret0123456789';
const stripe = {
  ...base,
  PAYMENT_PROCESSOR: 'stripe',
  STRIPE_SECRET_KEY: SECRET,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_public',
  STRIPE_WEBHOOK_SECRET: WHSEC,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('payment processor configuration', () => {
  it('defaults to the test-mode processor on both hosts', () => {
    expect(loadConfig(base).payments).to.deep.equal({ processor: 'test' });
    expect(loadConfig({ ...base, API_MODE: 'sandbox' }).payments).to.deep.equal({ processor: 'test' });
  });

  it('takes no online payments on an unconfigured production host with APP_ENV=production, unless told test', () => {
    const live = { APP_ENV: 'production', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(loadConfig(live).payments).to.deep.equal({ processor: 'none' });
    expect(loadConfig({ ...live, PAYMENT_PROCESSOR: 'test' }).payments).to.deep.equal({ processor: 'test' });
    expect(loadConfig({ ...live, API_MODE: 'sandbox' }).payments).to.deep.equal({ processor: 'test' });
  });

  it('builds the Stripe config on production, its secrets revealed only on request', () => {
    const payments = loadConfig(stripe).payments;
    if (payments.processor !== 'stripe') throw new Error('expected stripe');
    expect(payments.stripe.publishableKey).to.equal('pk_test_public');
    expect(payments.stripe.secretKey.reveal()).to.equal(SECRET);
    expect(payments.stripe.webhookSecret.reveal()).to.equal(WHSEC);
  });

  it('never prints the secret key or the webhook secret: JSON, inspect and template strings say [redacted]', () => {
    const config = loadConfig(stripe);
    const stripeConfig = config.payments.processor === 'stripe' ? config.payments.stripe : undefined;
    const secrets = [stripeConfig?.secretKey, stripeConfig?.webhookSecret];
    for (const text of [JSON.stringify(config), inspect(config, { depth: 10 }), secrets.map(String).join()]) {
      expect(text).not.to.include(SECRET);
      expect(text).not.to.include(WHSEC);
    }
    expect(JSON.stringify(config.payments)).to.include('[redacted]');
  });

  it('requires the three Stripe variables with stripe, naming each and never echoing a value', () => {
    expect(problemsOf({ ...base, PAYMENT_PROCESSOR: 'stripe' })).to.deep.equal([
      'STRIPE_SECRET_KEY is required when PAYMENT_PROCESSOR is stripe',
      'STRIPE_PUBLISHABLE_KEY is required when PAYMENT_PROCESSOR is stripe',
      'STRIPE_WEBHOOK_SECRET is required when PAYMENT_PROCESSOR is stripe',
    ]);
    const swapped = problemsOf({ ...stripe, STRIPE_SECRET_KEY: WHSEC, STRIPE_WEBHOOK_SECRET: SECRET });
    expect(swapped).to.have.length(2);
    expect(swapped.join('\n'))
      .to.include('STRIPE_SECRET_KEY is invalid')
      .and.not.include(SECRET)
      .and.not.include(WHSEC);
  });

  it('refuses stripe on the sandbox host, which always uses the test-mode processor', () => {
    expect(problemsOf({ ...stripe, API_MODE: 'sandbox' })).to.deep.equal([
      'PAYMENT_PROCESSOR is invalid: the sandbox always uses the test-mode processor (no money moves)',
    ]);
    expect(problemsOf({ ...base, PAYMENT_PROCESSOR: 'paypal' })[0]).to.match(/^PAYMENT_PROCESSOR is invalid/);
  });
});
