/**
 * The webhook delivery path on a real Temporal dev server, production mode unless told: a worker on its own task queue running
 * the webhooks bundle with the real delivery activity (optionally wrapped by the test), and the outbox relay with the
 * webhook delivery consumer, as the webhooks worker process runs them.
 */
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createWebhookDeliveryActivities, type WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { Mode, WebhookConfig } from '../../core/platform/config';
import type { OutboxConsumer } from '../../core/events/consumer';
import { NAMESPACES } from '../../core/temporal/names';
import { startOutboxRelay } from '../../core/events/relay';
import { createSecretBox } from '../../core/platform/secret-box';
import { createWebhookDeliveryConsumer } from '../../core/webhooks/delivery-consumer';
import { testEnv } from './env';
import { testDb } from './resources';
import { bundleWorkflows, uniqueTaskQueue } from './temporal';
import { localWebhookConfig } from './webhooks';
import { silentLogger } from './logger';

export interface DeliveryStack {
  taskQueue: string;
  /** A client in the mode's namespace. */
  client: Client;
  webhooks: WebhookConfig;
  stop(): Promise<void>;
}

export interface DeliveryStackOptions {
  /** Wraps the real activities, e.g. to hold one with a gate. */
  wrapActivities?: (real: WebhookDeliveryActivities) => object;
  /** Extra activities the worker also serves (e.g. the reconciler's). */
  extraActivities?: (deps: { client: Client; taskQueue: string }) => object;
  worker?: Partial<WorkerOptions>;
  /** Run the outbox relay (default); without it, deliveries are made by `dispatchAll` and nothing starts them. */
  relay?: boolean;
  /** The mode whose namespace and outbox the stack serves (default production). */
  mode?: Mode;
  /** More consumers the relay runs beside the webhook delivery consumer (e.g. the debt lifecycle's). */
  extraConsumers?: OutboxConsumer[];
}

export async function startDeliveryStack(
  temporal: TestWorkflowEnvironment,
  options: DeliveryStackOptions = {},
): Promise<DeliveryStack> {
  const webhooks = localWebhookConfig();
  const mode = options.mode ?? 'production';
  const namespace = NAMESPACES[mode];
  const taskQueue = uniqueTaskQueue('webhooks-stack');
  const client = new Client({ connection: temporal.connection, namespace });
  const real = createWebhookDeliveryActivities({
    db: testDb(),
    webhooks,
    secretBox: createSecretBox(webhooks.secretKeys),
  });
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/webhooks')),
    activities: {
      ...(options.wrapActivities?.(real) ?? real),
      ...options.extraActivities?.({ client, taskQueue }),
    },
    ...options.worker,
  });
  const running = worker.run();
  const relay =
    (options.relay ?? true) &&
    startOutboxRelay({
      mode,
      db: testDb(),
      databaseUrl: testEnv.databaseUrl,
      consumers: [
        createWebhookDeliveryConsumer({ logger: silentLogger('test'), mode, db: testDb(), client, taskQueue }),
        ...(options.extraConsumers ?? []),
      ],
      logger: silentLogger('delivery-stack'),
    });
  return {
    taskQueue,
    client,
    webhooks,
    async stop() {
      if (relay) await relay.stop();
      worker.shutdown();
      await running.catch(() => undefined);
    },
  };
}
