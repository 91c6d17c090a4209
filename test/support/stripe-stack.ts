/**
 * A test API server whose payments go through the Stripe adapter, with Stripe's API the local stand-in
 * (fake-stripe-api.ts): the configuration a production host with PAYMENT_PROCESSOR=stripe has, the keys a test's own.
 */
import { RedactedSecret } from '../../core/platform/payment-config';
import type { PaymentProcessor } from '../../core/payments/processor';
import { createStripeClient, type Stripe } from '../../core/payments/stripe-client';
import { createStripeProcessor } from '../../core/payments/stripe-processor';
import { startTestServer, type TestServer } from './app';
import { startFakeStripeApi, type FakeStripeApi } from './fake-stripe-api';
import { testDb } from './resources';

export interface StripeKeys {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
}

export interface StripeStack {
  fake: FakeStripeApi;
  /** A client of the stand-in, with the stack's secret key (it also signs test webhooks). */
  stripe: Stripe;
  server: TestServer;
  /** The adapter on the stack's database, for tests that start payments without the portal. */
  processor: PaymentProcessor;
  close(): Promise<void>;
}

export async function startStripeStack(keys: StripeKeys): Promise<StripeStack> {
  const fake = await startFakeStripeApi();
  const stripe = createStripeClient({ secretKey: new RedactedSecret(keys.secretKey) }, fake.endpoint);
  const server = await startTestServer({
    env: {
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: keys.secretKey,
      STRIPE_PUBLISHABLE_KEY: keys.publishableKey,
      STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
    },
    // The portal's payments and the webhook ingest's refunds go to the stand-in, never api.stripe.com.
    deps: { stripe },
  });
  const processor = createStripeProcessor({ db: testDb(), stripe, publishableKey: keys.publishableKey });
  return {
    fake,
    stripe,
    server,
    processor,
    async close() {
      await server.close();
      await fake.close();
    },
  };
}
