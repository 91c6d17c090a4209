/**
 * The payment processor part of the configuration (config.ts reads it for the API): which processor takes debtors'
 * payments, and Stripe's keys when it is Stripe (docs/operators/configuration.md, "Payments"). The sandbox always
 * uses the test-mode processor: no money moves there (spec §1), so PAYMENT_PROCESSOR=stripe on the sandbox host
 * stops start-up; and a production host with APP_ENV=production refuses the test-mode processor, so a test card can
 * never settle a real debt. The Stripe secret key and webhook signing secret are held in `RedactedSecret`s, so a config object
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

/** Where the `stripe` library sends its requests (its host/port/protocol options). */
export interface StripeEndpoint {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

export interface StripeConfig {
  /** `sk_live_…`, `sk_test_…` or a restricted `rk_…` key: creates and reads PaymentIntents. */
  secretKey: RedactedSecret;
  /** `pk_live_…` / `pk_test_…`: public by design, handed to the portal's card form. */
  publishableKey: string;
  /** `whsec_…`: verifies the signature of Stripe's webhook events at POST /processor/stripe/webhook. */
  webhookSecret: RedactedSecret;
  /** Where Stripe's API is reached (STRIPE_API_URL); absent: api.stripe.com. */
  endpoint?: StripeEndpoint;
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
    desc: 'test (no money moves; refused on a production host with APP_ENV=production) or stripe; unset: test, except on a production host with APP_ENV=production (none)',
  }),
  STRIPE_SECRET_KEY: str({ default: '', desc: 'Stripe secret key (sk_…/rk_…); required with stripe; never logged' }),
  STRIPE_PUBLISHABLE_KEY: str({ default: '', desc: 'Stripe publishable key (pk_…); required with stripe' }),
  STRIPE_WEBHOOK_SECRET: str({ default: '', desc: 'Stripe webhook signing secret (whsec_…); required with stripe' }),
  STRIPE_API_URL: str({
    default: '',
    desc: "Stripe's API origin when not https://api.stripe.com: an egress proxy or a Stripe-compatible stand-in",
  }),
};

export interface PaymentEnv {
  APP_ENV: string;
  PAYMENT_PROCESSOR: string;
  STRIPE_SECRET_KEY: string;
  STRIPE_PUBLISHABLE_KEY: string;
  STRIPE_WEBHOOK_SECRET: string;
  STRIPE_API_URL: string;
}

/** Each Stripe variable's expected prefix; a problem names the variable and the prefix, never the value. */
const STRIPE_PREFIXES: { name: keyof PaymentEnv; prefixes: string[] }[] = [
  { name: 'STRIPE_SECRET_KEY', prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'] },
  { name: 'STRIPE_PUBLISHABLE_KEY', prefixes: ['pk_live_', 'pk_test_'] },
  { name: 'STRIPE_WEBHOOK_SECRET', prefixes: ['whsec_'] },
];

/** An http(s) origin as the `stripe` library takes it (host, port, protocol); undefined when the value is not one. */
function stripeEndpoint(value: string): StripeEndpoint | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.username) {
    return undefined;
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { protocol, host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443 };
}

export function paymentConfig(e: PaymentEnv, mode: Mode, problems: string[]): PaymentConfig {
  // Real debts live only on a production host outside development and tests.
  const realDebts = mode === 'production' && e.APP_ENV !== 'development' && e.APP_ENV !== 'test';
  if (e.PAYMENT_PROCESSOR === '') return realDebts ? { processor: 'none' } : { processor: 'test' };
  if (e.PAYMENT_PROCESSOR === 'test') {
    if (realDebts) {
      problems.push(
        `PAYMENT_PROCESSOR is invalid: test is refused on the production host with APP_ENV=${e.APP_ENV} (a test card ` +
          'would settle a real debt); use stripe, or leave it unset for no online payments',
      );
    }
    return { processor: 'test' };
  }
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
  const endpoint = e.STRIPE_API_URL === '' ? undefined : stripeEndpoint(e.STRIPE_API_URL);
  if (e.STRIPE_API_URL !== '' && !endpoint) {
    problems.push('STRIPE_API_URL is invalid: expected an http(s) origin such as https://stripe-proxy.internal:8443');
  }
  return {
    processor: 'stripe',
    stripe: {
      secretKey: new RedactedSecret(e.STRIPE_SECRET_KEY),
      publishableKey: e.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: new RedactedSecret(e.STRIPE_WEBHOOK_SECRET),
      ...(endpoint ? { endpoint } : {}),
    },
  };
}
