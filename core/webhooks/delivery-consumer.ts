/**
 * Webhook delivery as an outbox consumer (DECISIONS.md §4): an event's delivery row was enqueued with the event
 * (`recordEvent`); the consumer starts its `webhook-delivery-<deliveryId>` workflow after the batch commits. Starting is idempotent per run
 * (delivery-starter.ts). A delivery whose start was lost (a crash between commit and start), a test ping, or a
 * manual retry has no `workflow_started_at` and is started by the sweep after every pass.
 */
import type { Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { createDeliveryStarter } from './delivery-starter';
import { listUnstartedDeliveries, unstartedDeliveriesOf } from './dispatch';

export const WEBHOOK_DELIVERY_CONSUMER = 'webhook-deliveries';

const SWEEP_BATCH = 500;

export interface WebhookDeliveryConsumerOptions {
  mode: Mode;
  db: Db;
  /** A client in the mode's namespace. */
  client: Client;
  taskQueue?: string;
}

export function createWebhookDeliveryConsumer(options: WebhookDeliveryConsumerOptions): OutboxConsumer {
  const { db, mode } = options;
  const starter = createDeliveryStarter(options);

  return {
    name: WEBHOOK_DELIVERY_CONSUMER,
    async consume(trx, events) {
      const deliveries = await unstartedDeliveriesOf(trx, events);
      return deliveries.length > 0 ? () => starter.startAll(deliveries) : undefined;
    },
    async sweep() {
      for (;;) {
        const unstarted = await listUnstartedDeliveries(db, mode, SWEEP_BATCH);
        await starter.startAll(unstarted);
        if (unstarted.length < SWEEP_BATCH) return;
      }
    },
  };
}
