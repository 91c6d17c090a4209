/**
 * Worker process for the `webhooks` task queue (webhook delivery), serving production and sandbox by default.
 * Each mode also runs an outbox relay here with the webhook delivery consumer, which turns that mode's events into
 * delivery workflows.
 */
import { Client } from '@temporalio/client';
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createWebhookDeliveryActivities } from '../activities/webhook-delivery';
import { startOutboxRelay } from '../core/events/relay';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';
import { createWebhookDeliveryConsumer } from '../core/webhooks/delivery-consumer';

void runWorker({
  taskQueue: TASK_QUEUES.webhooks,
  workflowsPath: require.resolve('../workflows/bundles/webhooks'),
  defaultModes: 'production,sandbox',
  createActivities: ({ db, webhooks, secretBox }) => ({
    ...createDiagnosticsActivities({ db }),
    ...createWebhookDeliveryActivities({ db, webhooks, secretBox }),
  }),
  startSidecar: async ({ mode, db, databaseUrl, namespace, connection, logger }) => {
    const client = new Client({ connection, namespace });
    const consumers = [createWebhookDeliveryConsumer({ mode, db, client })];
    const relay = startOutboxRelay({ mode, db, databaseUrl, logger, consumers });
    return () => relay.stop();
  },
});
