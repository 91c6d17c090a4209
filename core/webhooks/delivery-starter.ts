/**
 * Starts delivery runs and records that they started. Each run has its own workflow id (the delivery id and its
 * generation, see `workflowIds.webhookDelivery`), so starting a run again is a no-op while starting a newer
 * generation always makes a new run, even while the previous run is still closing.
 */
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Db } from '../platform/db';
import {
  SEARCH_ATTRIBUTE_KEYS,
  TASK_QUEUES,
  WORKFLOW_TYPES,
  pendingDeliverySearchAttributes,
  workflowIds,
} from '../temporal/names';
import { roundRobinByOrganization, tenantPriority } from '../temporal/fairness';
import { startOnce } from '../temporal/start-once';
import { markWorkflowsStarted, type DeliveryRef } from './dispatch';

const START_CONCURRENCY = 100;
/** How long one start may wait for Temporal; the delivery stays owed and is started again later. */
const START_DEADLINE_MS = 10_000;

/**
 * How a delivery run starts: its id, its queue, its tenant's fairness key, and the search attributes an operator finds
 * it by. They are set at the start, so a run still waiting in a backlog is already found by organisation, event type,
 * status and request (`RequestId = "req_…"`: every delivery a request caused; docs/operators/operations.md); the workflow only
 * updates the status. Tests start runs with these options too.
 */
export function deliveryStartOptions(ref: DeliveryRef, taskQueue: string) {
  const { requestId, bulk, ...input } = ref;
  const searchAttributes = [
    ...pendingDeliverySearchAttributes(ref.organizationId, ref.eventType),
    ...(requestId ? [{ key: SEARCH_ATTRIBUTE_KEYS.requestId, value: requestId }] : []),
  ];
  return {
    taskQueue,
    workflowId: workflowIds.webhookDelivery(ref.deliveryId, ref.generation),
    args: [input] as [Omit<DeliveryRef, 'requestId'>],
    // One tenant's backlog does not hold up another's; a placement's deliveries go after everyone's others.
    priority: tenantPriority(ref.organizationId, { bulk }),
    typedSearchAttributes: searchAttributes,
  } satisfies WorkflowStartOptions;
}

export interface DeliveryStarter {
  /** Starts one run under a deadline (a hung server cannot hold the caller); a run that exists counts as started. */
  start(ref: DeliveryRef): Promise<void>;
  /**
   * Starts each run, in rounds across organisations, marks the ones that started, and throws if any did not (the
   * caller's next pass retries them).
   */
  startAll(refs: DeliveryRef[]): Promise<void>;
}

export interface DeliveryStarterOptions {
  db: Db;
  client: Client;
  taskQueue?: string;
}

export function createDeliveryStarter(options: DeliveryStarterOptions): DeliveryStarter {
  const { db, client } = options;
  const taskQueue = options.taskQueue ?? TASK_QUEUES.webhooks;

  async function start(ref: DeliveryRef): Promise<void> {
    await startOnce(client, WORKFLOW_TYPES.webhookDelivery, deliveryStartOptions(ref, taskQueue), START_DEADLINE_MS);
  }

  return {
    start,
    async startAll(batch) {
      const refs = roundRobinByOrganization(batch); // one tenant's many do not go before everyone else's few
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
