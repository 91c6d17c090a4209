/**
 * Webhook delivery as an outbox consumer (DECISIONS.md §4): an event's delivery row was enqueued with the event
 * (`recordEvent`), owed its `webhook-delivery-<deliveryId>` workflow until `workflow_started_at` is set. The consumer
 * only wakes this process's fair starter (core/temporal/fair-starter.ts) once a batch commits; the starter claims the
 * owed deliveries organisation by organisation and starts them in turns, so one tenant's burst neither holds the
 * outbox nor queues another tenant's delivery behind its own. A delivery whose start was lost (a crash between claim
 * and start), a test ping or a manual retry is owed like any other and started the same way.
 */
import type { OutboxConsumer } from '../events/consumer';
import type { Logger } from '../platform/logger';
import type { Mode } from '../platform/mode';
import { createFairStarter, type FairStarterOptions } from '../temporal/fair-starter';
import { createDeliveryStarter, type DeliveryStarterOptions } from './delivery-starter';
import { claimOwedDeliveries, markWorkflowsStarted, releaseDeliveryClaims } from './dispatch';

export const WEBHOOK_DELIVERY_CONSUMER = 'webhook-deliveries';

/** How the delivery starter runs; the bench and docs/operators/scaling.md explain the numbers. */
export const DELIVERY_START_LOOP: Omit<FairStarterOptions, 'logger'> = {
  concurrency: 16,
  perOrganization: 50,
  leaseMs: 30_000,
};

/**
 * Admission by progress: an organisation's deliveries between their claim and their first attempt. Its next ones are
 * claimed as these are tried, so a burst waits here, in PostgreSQL, instead of in the Temporal server's queues ahead
 * of every other tenant's delivery; the bound is above what the server clears in the time a start takes to be tried,
 * so the burst's own rate does not fall (docs/operators/scaling.md).
 */
export const DELIVERIES_IN_FLIGHT_PER_ORGANIZATION = 32;

export interface WebhookDeliveryConsumerOptions extends DeliveryStarterOptions {
  mode: Mode;
  logger: Logger;
  /** Tests shorten the lease. */
  startLoop?: Partial<Omit<FairStarterOptions, 'logger'>>;
  /** Tests lower the bound (default DELIVERIES_IN_FLIGHT_PER_ORGANIZATION). */
  inFlightPerOrganization?: number;
}

export function createWebhookDeliveryConsumer(options: WebhookDeliveryConsumerOptions): OutboxConsumer {
  const { db, mode } = options;
  const inFlightPerOrganization = options.inFlightPerOrganization ?? DELIVERIES_IN_FLIGHT_PER_ORGANIZATION;
  const starter = createDeliveryStarter(options);
  const loop = createFairStarter(
    {
      claim: (perOrganization, skip, leaseMs) =>
        claimOwedDeliveries(db, mode, perOrganization, skip, leaseMs, inFlightPerOrganization),
      start: (ref) => starter.start(ref),
      recordStarted: (refs) => markWorkflowsStarted(db, refs),
      release: (refs, afterMs) => releaseDeliveryClaims(db, refs, afterMs),
    },
    {
      ...DELIVERY_START_LOOP,
      ...options.startLoop,
      logger: options.logger.child({ component: 'delivery-starter', mode }),
    },
  );

  return {
    name: WEBHOOK_DELIVERY_CONSUMER,
    async consume() {
      return async () => loop.kick(); // the batch's deliveries are owed since their events committed
    },
    // After every pass of the relay: starts owed by another process that died, or whose lease ran out.
    sweep: async () => loop.kick(),
    stop: () => loop.stop(),
  };
}
