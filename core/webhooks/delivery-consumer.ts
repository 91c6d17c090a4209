/**
 * Webhook delivery as an outbox consumer (DECISIONS.md §4): each event becomes at most one delivery row, written in
 * the transaction that moves the consumer's cursor, and each new delivery one `webhook-delivery-<deliveryId>`
 * workflow, started after commit (the workflow's activity must find the row). Starting is idempotent per run
 * (delivery-starter.ts). A delivery whose start was lost (a crash between commit and start), a test ping, or a
 * manual retry has no `workflow_started_at` and is started by the sweep after every pass.
 */
import type { Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { createDeliveryStarter } from './delivery-starter';
import { insertDeliveries, listUnstartedDeliveries } from './dispatch';

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
      const deliveries = await insertDeliveries(trx, events);
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
