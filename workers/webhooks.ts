/**
 * Worker process for the `webhooks` task queue (webhook delivery), serving production and sandbox by default.
 * Each mode also runs its webhook relay here, which turns that mode's outbox into delivery workflows.
 */
import { Client } from '@temporalio/client';
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createWebhookDeliveryActivities } from '../activities/webhook-delivery';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';
import { startWebhookRelay } from '../core/events/relay';

void runWorker({
  taskQueue: TASK_QUEUES.webhooks,
  workflowsPath: require.resolve('../workflows/bundles/webhooks'),
  defaultModes: 'production,sandbox',
  createActivities: ({ db, webhooks, secretBox }) => ({
    ...createDiagnosticsActivities({ db }),
    ...createWebhookDeliveryActivities({ db, webhooks, secretBox }),
  }),
  startSidecar: async ({ mode, db, databaseUrl, namespace, connection, logger }) => {
    const relay = startWebhookRelay({ mode, db, databaseUrl, logger, client: new Client({ connection, namespace }) });
    return () => relay.stop();
  },
});
