/**
 * Starts delivery runs and records that they started. Each run has its own workflow id (the delivery id and its
 * generation, see `workflowIds.webhookDelivery`), so starting a run again is a no-op while starting a newer
 * generation always makes a new run, even while the previous run is still closing.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from '../platform/db';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import { tenantPriority } from '../temporal/fairness';
import { markWorkflowsStarted, type DeliveryRef } from './dispatch';

const START_CONCURRENCY = 100;

export interface DeliveryStarter {
  /** Starts each run, marks the ones that started, and throws if any did not (the caller's next pass retries them). */
  startAll(refs: DeliveryRef[]): Promise<void>;
}

export function createDeliveryStarter(options: { db: Db; client: Client; taskQueue?: string }): DeliveryStarter {
  const { db, client } = options;
  const taskQueue = options.taskQueue ?? TASK_QUEUES.webhooks;

  async function start(ref: DeliveryRef): Promise<void> {
    try {
      const { requestId, ...input } = ref;
      await client.workflow.start(WORKFLOW_TYPES.webhookDelivery, {
        taskQueue,
        workflowId: workflowIds.webhookDelivery(ref.deliveryId, ref.generation),
        args: [input],
        priority: tenantPriority(ref.organizationId), // one tenant's backlog does not hold up another's
        // `RequestId = "req_…"` finds the runs of every delivery a request caused (docs/operations.md).
        ...(requestId && { typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.requestId, value: requestId }] }),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // this run exists: that is the point
    }
  }

  return {
    async startAll(refs) {
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
      if (failures.length > 0) {
        throw new AggregateError(failures, `${failures.length} delivery workflows did not start`);
      }
    },
  };
}
