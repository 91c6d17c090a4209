/**
 * The payment processor part of the configuration (config.ts reads it for the API): which processor takes debtors'
 * payments, and Stripe's keys when it is Stripe (docs/operators/configuration.md, "Payments"). The sandbox always
 * uses the test-mode processor: no money moves there (spec §1), so PAYMENT_PROCESSOR=stripe on the sandbox host
 * stops start-up. The Stripe secret key and webhook signing secret are held in `RedactedSecret`s, so a config object
 * that reaches a log line, JSON or `console.log` by mistake shows `[redacted]`, never the value.
 */
import { inspect } from 'node:util';
import { str } from 'envalid';
import type { Mode } from './mode';

export type PaymentProcessorChoice = 'test' | 'stripe';

/** A secret that does not print itself: `reveal()` is the one way to its value. */
export class RedactedSecret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return '[redacted]';
  }
}

export interface StripeConfig {
  /** `sk_live_…`, `sk_test_…` or a restricted `rk_…` key: creates and reads PaymentIntents. */
  secretKey: RedactedSecret;
  /** `pk_live_…` / `pk_test_…`: public by design, handed to the portal's card form. */
  publishableKey: string;
  /** `whsec_…`: verifies the signature of Stripe's webhook events at POST /processor/stripe/webhook. */
  webhookSecret: RedactedSecret;
}

/**
 * `none`: no online payments (the portal says so). What an unconfigured production deployment gets: the test-mode
 * processor would let a debtor "pay" a real debt with a test card.
 */
export type PaymentConfig =
  { processor: 'test' } | { processor: 'stripe'; stripe: StripeConfig } | { processor: 'none' };

export const PAYMENT_ENV = {
  PAYMENT_PROCESSOR: str({
    choices: ['', 'test', 'stripe'],
    default: '',
    desc: 'test (no money moves) or stripe; unset: test, except on a production host with APP_ENV=production',
  }),
  STRIPE_SECRET_KEY: str({ default: '', desc: 'Stripe secret key (sk_…/rk_…); required with stripe; never logged' }),
  STRIPE_PUBLISHABLE_KEY: str({ default: '', desc: 'Stripe publishable key (pk_…); required with stripe' }),
  STRIPE_WEBHOOK_SECRET: str({ default: '', desc: 'Stripe webhook signing secret (whsec_…); required with stripe' }),
};

export interface PaymentEnv {
  APP_ENV: string;
  PAYMENT_PROCESSOR: string;
  STRIPE_SECRET_KEY: string;
  STRIPE_PUBLISHABLE_KEY: string;
  STRIPE_WEBHOOK_SECRET: string;
}

/** Each Stripe variable's expected prefix; a problem names the variable and the prefix, never the value. */
const STRIPE_PREFIXES: { name: keyof PaymentEnv; prefixes: string[] }[] = [
  { name: 'STRIPE_SECRET_KEY', prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'] },
  { name: 'STRIPE_PUBLISHABLE_KEY', prefixes: ['pk_live_', 'pk_test_'] },
  { name: 'STRIPE_WEBHOOK_SECRET', prefixes: ['whsec_'] },
];

export function paymentConfig(e: PaymentEnv, mode: Mode, problems: string[]): PaymentConfig {
  if (e.PAYMENT_PROCESSOR === '') {
    const realDebts = mode === 'production' && e.APP_ENV !== 'development' && e.APP_ENV !== 'test';
    return realDebts ? { processor: 'none' } : { processor: 'test' };
  }
  if (e.PAYMENT_PROCESSOR === 'test') return { processor: 'test' };
  if (mode === 'sandbox') {
    problems.push('PAYMENT_PROCESSOR is invalid: the sandbox always uses the test-mode processor (no money moves)');
    return { processor: 'test' };
  }
  for (const { name, prefixes } of STRIPE_PREFIXES) {
    const value = e[name];
    if (value === '') problems.push(`${name} is required when PAYMENT_PROCESSOR is stripe`);
    else if (!prefixes.some((prefix) => value.startsWith(prefix))) {
      problems.push(`${name} is invalid: expected a value starting with ${prefixes.join(' or ')}`);
    }
  }
  return {
    processor: 'stripe',
    stripe: {
      secretKey: new RedactedSecret(e.STRIPE_SECRET_KEY),
      publishableKey: e.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: new RedactedSecret(e.STRIPE_WEBHOOK_SECRET),
    },
  };
}
