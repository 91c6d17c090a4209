/**
 * The one place a `Stripe` client is built (the `stripe` npm package, pinned in package.json): from the configured
 * secret key, with the API version the package was built for, so a Stripe account's default version never changes
 * what we send or parse. `endpoint` (STRIPE_API_URL, or a test's) points it elsewhere: an egress proxy, or a local
 * HTTP server standing in for api.stripe.com, which cannot be reached from the test machines.
 */
import Stripe from 'stripe';
import type { StripeConfig, StripeEndpoint } from '../platform/payment-config';

export type { Stripe };

export type { StripeEndpoint };

/** Payments wait at most this long for Stripe; the library retries a network failure with the same idempotency key. */
const STRIPE_TIMEOUT_MS = 20_000;

export function createStripeClient(
  config: Pick<StripeConfig, 'secretKey' | 'endpoint'>,
  endpoint = config.endpoint,
): Stripe {
  return new Stripe(config.secretKey.reveal(), {
    apiVersion: Stripe.API_VERSION,
    maxNetworkRetries: 2,
    timeout: STRIPE_TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'client-public-api' },
    ...endpoint,
  });
}
