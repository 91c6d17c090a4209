/**
 * Webhook delivery as an outbox consumer (DECISIONS.md §4): each event becomes at most one delivery row, written in
 * the transaction that moves the consumer's cursor, and each new delivery one `webhook-delivery-<deliveryId>`
 * workflow, started after commit (the workflow's activity must find the row). Starting is idempotent: an already
 * running workflow is fine. A delivery whose start was lost (a crash between commit and start), a test ping, or a
 * manual retry has no `workflow_started_at` and is started by the sweep after every pass.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import { insertDeliveries, listUnstartedDeliveries, markWorkflowsStarted, type DeliveryRef } from './dispatch';

export const WEBHOOK_DELIVERY_CONSUMER = 'webhook-deliveries';

const START_CONCURRENCY = 100;
const SWEEP_BATCH = 500;

export interface WebhookDeliveryConsumerOptions {
  mode: Mode;
  db: Db;
  /** A client in the mode's namespace. */
  client: Client;
  taskQueue?: string;
}

export function createWebhookDeliveryConsumer(options: WebhookDeliveryConsumerOptions): OutboxConsumer {
  const { db, mode, client } = options;
  const taskQueue = options.taskQueue ?? TASK_QUEUES.webhooks;

  async function start(ref: DeliveryRef): Promise<void> {
    try {
      await client.workflow.start(WORKFLOW_TYPES.webhookDelivery, {
        taskQueue,
        workflowId: workflowIds.webhookDelivery(ref.deliveryId),
        args: [ref],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // already running: that is the point
    }
  }

  /** Starts each run, marks the ones that started, and throws if any did not (the sweep retries them). */
  async function startAll(refs: DeliveryRef[]): Promise<void> {
    const failures: unknown[] = [];
    for (let i = 0; i < refs.length; i += START_CONCURRENCY) {
      const chunk = refs.slice(i, i + START_CONCURRENCY);
      const results = await Promise.allSettled(chunk.map(start));
      await markWorkflowsStarted(
        db,
        chunk.filter((_, j) => results[j]!.status === 'fulfilled'),
      );
      for (const r of results) if (r.status === 'rejected') failures.push(r.reason);
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} delivery workflows did not start`);
  }

  return {
    name: WEBHOOK_DELIVERY_CONSUMER,
    async consume(trx, events) {
      const deliveries = await insertDeliveries(trx, events);
      return deliveries.length > 0 ? () => startAll(deliveries) : undefined;
    },
    async sweep() {
      for (;;) {
        const unstarted = await listUnstartedDeliveries(db, mode, SWEEP_BATCH);
        await startAll(unstarted);
        if (unstarted.length < SWEEP_BATCH) return;
      }
    },
  };
}
