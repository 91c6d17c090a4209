/**
 * Worker process for the `webhooks` task queue (webhook delivery), serving production and sandbox by default.
 * Each mode also runs an outbox relay here with the webhook delivery consumer, which turns that mode's events into
 * delivery workflows, and the Schedules of the delivery reconciler and of the retention purge are created if missing.
 */
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createWebhookDeliveryActivities } from '../activities/webhook-delivery';
import { createRetentionPurgeActivities } from '../activities/retention-purge';
import { createWebhookReconcileActivities } from '../activities/webhook-reconcile';
import { reportOutboxLag } from '../core/events/outbox-lag';
import { startOutboxRelay } from '../core/events/relay';
import { ensureRetentionSchedule } from '../core/retention/schedule';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';
import { createWebhookDeliveryConsumer } from '../core/webhooks/delivery-consumer';
import { ensureReconcileSchedule } from '../core/webhooks/reconcile-schedule';
import {
  WEBHOOKS_ACTIVITY_SLOTS,
  WEBHOOKS_LOCAL_ACTIVITY_SLOTS,
  WEBHOOKS_WORKFLOW_TASK_SLOTS,
} from '../core/webhooks/receiver-slots';

void runWorker({
  taskQueue: TASK_QUEUES.webhooks,
  workflowsPath: require.resolve('../workflows/bundles/webhooks'),
  defaultModes: 'production,sandbox',
  activitySlots: WEBHOOKS_ACTIVITY_SLOTS,
  localActivitySlots: WEBHOOKS_LOCAL_ACTIVITY_SLOTS,
  workflowTaskSlots: WEBHOOKS_WORKFLOW_TASK_SLOTS,
  createActivities: ({ mode, db, webhooks, secretBox, client, logger, documents }) => ({
    ...createDiagnosticsActivities({ db }),
    ...createWebhookDeliveryActivities({ db, webhooks, secretBox, mode, logger: logger.child({ mode }) }),
    ...createWebhookReconcileActivities({ db, mode, client, logger }),
    ...createRetentionPurgeActivities({ db, mode, logger, documents }),
  }),
  startSidecar: async ({ mode, db, databaseUrl, namespace, client, logger }) => {
    if (await ensureReconcileSchedule(client)) logger.info({ mode, namespace }, 'delivery reconciler scheduled');
    if (await ensureRetentionSchedule(client)) logger.info({ mode, namespace }, 'retention purge scheduled');
    const consumers = [createWebhookDeliveryConsumer({ mode, db, client, logger })];
    const relay = startOutboxRelay({ mode, db, databaseUrl, logger, consumers });
    const stopLag = reportOutboxLag({ db, mode, consumers: consumers.map((c) => c.name) });
    return () => {
      stopLag();
      return relay.stop();
    };
  },
});
