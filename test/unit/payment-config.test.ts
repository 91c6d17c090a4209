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

  const live = { APP_ENV: 'production', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };

  it('takes no online payments on an unconfigured production host with APP_ENV=production', () => {
    expect(loadConfig(live).payments).to.deep.equal({ processor: 'none' });
    expect(loadConfig({ ...live, API_MODE: 'sandbox' }).payments).to.deep.equal({ processor: 'test' });
  });

  it('refuses the test-mode processor on the production host with APP_ENV=production: a test card never settles a real debt', () => {
    expect(problemsOf({ ...live, PAYMENT_PROCESSOR: 'test' })).to.deep.equal([
      'PAYMENT_PROCESSOR is invalid: test is refused on the production host with APP_ENV=production (a test card ' +
        'would settle a real debt); use stripe, or leave it unset for no online payments',
    ]);
    // Where no real debt lives it stays allowed: the sandbox host, and production mode in development and tests.
    expect(loadConfig({ ...live, API_MODE: 'sandbox', PAYMENT_PROCESSOR: 'test' }).payments.processor).to.equal('test');
    for (const APP_ENV of ['development', 'test']) {
      expect(loadConfig({ APP_ENV, PAYMENT_PROCESSOR: 'test' }).payments.processor, APP_ENV).to.equal('test');
    }
  });

  it('reaches Stripe at api.stripe.com, or at STRIPE_API_URL (an egress proxy or a Stripe-compatible stand-in)', () => {
    const at = (env: Record<string, string>) => {
      const payments = loadConfig(env).payments;
      if (payments.processor !== 'stripe') throw new Error('expected stripe');
      return payments.stripe.endpoint;
    };
    expect(at(stripe)).to.equal(undefined);
    expect(at({ ...stripe, STRIPE_API_URL: 'http://127.0.0.1:18423' })).to.deep.equal({
      protocol: 'http',
      host: '127.0.0.1',
      port: 18423,
    });
    expect(at({ ...stripe, STRIPE_API_URL: 'https://stripe-proxy.internal' })).to.deep.equal({
      protocol: 'https',
      host: 'stripe-proxy.internal',
      port: 443,
    });
    expect(problemsOf({ ...stripe, STRIPE_API_URL: 'ftp://x/y' })).to.deep.equal([
      'STRIPE_API_URL is invalid: expected an http(s) origin such as https://stripe-proxy.internal:8443',
    ]);
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
