/** A delivery as the relay makes it, and a worker for the delivery workflow: shared by the workflow fault and replay tests. */
import { createSecretBox } from '../../core/platform/secret-box';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookDeliveryActivities, type WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { WebhookConfig } from '../../core/platform/config';
import type { DeliveryRef } from '../../core/webhooks/dispatch';
import { deliveryStartOptions } from '../../core/webhooks/delivery-starter';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { testDb } from './resources';
import { bundleWorkflows } from './temporal';
import { createTestTenant } from './tenants';
import { configureReceiver, deliveryOfEvent, dispatchAll, raiseEvent } from './webhooks';

/** A tenant with a receiver at `receiverUrl`, one event, and its delivery row. */
export async function newDelivery(webhooks: WebhookConfig, receiverUrl: string) {
  const tenant = await createTestTenant();
  const secret = await configureReceiver(webhooks, tenant.organization.id, receiverUrl);
  const eventId = await raiseEvent(tenant.organization.id);
  await dispatchAll();
  const row = (await deliveryOfEvent(eventId))!;
  const ref: DeliveryRef = {
    deliveryId: row.id,
    organizationId: row.organization_id,
    eventType: 'debt.created',
    generation: 0,
    requestId: null,
  };
  return { tenant, secret, eventId, ref };
}

export const webhooksBundle = () => bundleWorkflows(require.resolve('../../workflows/bundles/webhooks'));

/** Runs a worker of the webhooks bundle until `work` settles; `wrap` may replace activities (fault injection). */
export async function runDeliveryWorker<T>(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  webhooks: WebhookConfig,
  work: Promise<T>,
  wrap: (real: WebhookDeliveryActivities) => WebhookDeliveryActivities = (real) => real,
): Promise<T> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await webhooksBundle(),
    activities: wrap(
      createWebhookDeliveryActivities({
        db: testDb(),
        webhooks,
        secretBox: createSecretBox(webhooks.secretKeys),
      }),
    ),
  });
  return worker.runUntil(work);
}

/** Starts `ref`'s run as the relay's delivery starter does (same id, fairness key and search attributes). */
export function startDelivery(env: TestWorkflowEnvironment, taskQueue: string, ref: DeliveryRef) {
  return env.client.workflow.start(webhookDeliveryWorkflow, deliveryStartOptions(ref, taskQueue));
}

/**
 * The attempt's local activity executions in a run's history, in order: each is a marker with its time, its attempt
 * number, its failure when it failed, and whether the policy allowed another try (a back-off).
 */
export function attemptMarkers(history: temporal.api.history.v1.IHistory) {
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details!.data!.payloads![0]!.data!;
    const meta = JSON.parse(Buffer.from(data).toString('utf8')) as { attempt: number; backoff?: object | null };
    return [
      { at: tsToMs(e.eventTime), attempt: meta.attempt, retried: Boolean(meta.backoff), failure: marker.failure },
    ];
  });
}
