/**
 * The one choice of payment processor (docs/payments.md): the sandbox always gets the test-mode processor; the
 * production host gets Stripe when PAYMENT_PROCESSOR=stripe, the test-mode processor when PAYMENT_PROCESSOR=test or
 * in development and tests, and none (no online payments) when unconfigured with APP_ENV=production.
 * The test-mode processor's later failures run as Temporal timers in the mode's namespace (./later-failure.ts).
 */
import type { DebtTriggers } from '../lifecycle/triggers';
import type { Client } from '@temporalio/client';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import type { PaymentConfig } from '../platform/payment-config';
import { createLaterFailureScheduler } from './later-failure';
import type { PaymentProcessor } from './processor';
import { createStripeClient, type Stripe } from './stripe-client';
import { createStripeProcessor } from './stripe-processor';
import { createTestModeProcessor } from './test-mode-processor';

export interface PaymentProcessorDeps {
  mode: Mode;
  payments: PaymentConfig;
  db: Db;
  /** The mode's debt triggers (the API's `debtTriggers`). */
  triggers: DebtTriggers;
  /** A Temporal client in the mode's namespace: starts the test-mode processor's later failures. */
  temporal: Client;
  /** The lifecycle task queue (tests use their own). */
  taskQueue?: string;
  /** A Stripe client other than the configured one (tests point it at a local stand-in for Stripe's API). */
  stripe?: Stripe;
}

/** Undefined when the production host takes no online payments (`PAYMENT_PROCESSOR` unset with APP_ENV=production). */
export function createPaymentProcessor(deps: PaymentProcessorDeps): PaymentProcessor | undefined {
  const { payments } = deps;
  if (deps.mode === 'production' && payments.processor === 'none') return undefined;
  if (deps.mode === 'production' && payments.processor === 'stripe') {
    return createStripeProcessor({
      db: deps.db,
      stripe: deps.stripe ?? createStripeClient(payments.stripe),
      publishableKey: payments.stripe.publishableKey,
    });
  }
  return createTestModeProcessor({
    db: deps.db,
    triggers: deps.triggers,
    scheduleLaterFailure: createLaterFailureScheduler({ client: deps.temporal, taskQueue: deps.taskQueue }),
  });
}
