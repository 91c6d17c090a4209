/**
 * Fairness between tenants in the shared task queues (Temporal's task queue fairness): every workflow we start for
 * an organisation carries the organisation's id as its fairness key, and its activities and timers inherit it. When a
 * queue has a backlog, the server dispatches it round-robin across keys instead of first-in first-out, so one
 * tenant's burst (1,000 deliveries to a receiver that hangs, a bulk import of debts) does not queue every other
 * tenant's tasks behind its own. Keys are short (a UUID is 36 of the 64 bytes allowed); weights stay at 1.
 *
 * The server must have fairness switched on (`FAIRNESS_DYNAMIC_CONFIG`, set by every server the project starts and in
 * ops/temporal-dynamic-config.yaml); a server without it ignores the key and dispatches FIFO, and the per-receiver
 * cap (core/webhooks/receiver-slots.ts) still keeps a hanging receiver from taking every workflow task slot.
 */
import type { Priority } from '@temporalio/common';

export function tenantPriority(organizationId: string, options: { bulk?: boolean } = {}): Priority {
  return { fairnessKey: organizationId, ...(options.bulk && { priorityKey: BULK_PRIORITY_KEY }) };
}

/**
 * Bulk work's runs below the default (3): the delivery runs of a placement's events (core/events/bulk-work.ts) are
 * handed out only when no other run's task of any organisation is waiting in the queue, so a placement's thousands take
 * the capacity the rest leaves, and its own tenant's API debt is not behind them. Only short runs get it: a task
 * inherits its run's priority for the run's whole life, and a debt's lifecycle lives for months.
 */
export const BULK_PRIORITY_KEY = 4;

/**
 * A placement's workflow (and its activities, which inherit it) above the default (3): within its organisation's
 * fairness key it goes before the lifecycles of the debts it imports, which share its task queue.
 */
export const PLACEMENT_PRIORITY_KEY = 2;

/**
 * The items in rounds across organisations: every organisation's first, then every organisation's second, and so on,
 * each organisation's own order kept. The reconciler starts a page of stranded deliveries a group at a time; in the
 * page's order, one tenant's hundreds would put every other tenant's start behind them. (The outbox consumers' starts
 * take turns the same way in core/temporal/fair-starter.ts, across batches.)
 */
export function roundRobinByOrganization<T extends { organizationId: string }>(items: readonly T[]): T[] {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const queue = queues.get(item.organizationId);
    if (queue) queue.push(item);
    else queues.set(item.organizationId, [item]);
  }
  const rounds: T[] = [];
  for (let round = 0; rounds.length < items.length; round++) {
    for (const queue of queues.values()) if (round < queue.length) rounds.push(queue[round]!);
  }
  return rounds;
}

/**
 * Dynamic configuration that turns fairness on: the new matcher, fairness itself, and one partition per task queue
 * (fairness is kept within a partition, so several partitions would each be fair on their own share only; one
 * partition is ample for these queues' rates, see docs/operators/scaling.md).
 */
export const FAIRNESS_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** The same as `temporal server start-dev` arguments. */
export function fairnessDevServerArgs(): string[] {
  return Object.entries(FAIRNESS_DYNAMIC_CONFIG).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}
