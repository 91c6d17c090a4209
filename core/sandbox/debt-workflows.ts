/**
 * A sandbox tenant's `debt-<id>` workflows around a reset: the old ones are ended, the new seed's are started.
 * Old ones are found through the visibility API by the `OrganizationId` search attribute (every lifecycle workflow
 * carries it from its start), so a retried reset also ends the workflows of a seed that an interrupted attempt had
 * half started.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { backfillDebtWorkflows, type BackfillReport } from '../lifecycle/backfill';
import type { Db } from '../platform/db';
import { SEARCH_ATTRIBUTE_KEYS, WORKFLOW_TYPES, workflowIds } from '../temporal/names';

const TERMINATE_REASON = 'sandbox reset: the tenant was wiped and reseeded';

/** Visibility query for the tenant's running lifecycle workflows. */
export function runningDebtWorkflowsQuery(organizationId: string): string {
  return (
    `${SEARCH_ATTRIBUTE_KEYS.organizationId.name} = '${organizationId}' ` +
    `AND WorkflowType = '${WORKFLOW_TYPES.debtLifecycle}' AND ExecutionStatus = 'Running'`
  );
}

/** Terminates the tenant's running lifecycle workflows except those of `keepDebtIds`; returns how many it ended. */
export async function endDebtWorkflows(
  client: Client,
  organizationId: string,
  keepDebtIds: readonly string[] = [],
): Promise<number> {
  const keep = new Set(keepDebtIds.map((id) => workflowIds.debt(id)));
  let ended = 0;
  for await (const execution of client.workflow.list({ query: runningDebtWorkflowsQuery(organizationId) })) {
    if (keep.has(execution.workflowId)) continue;
    try {
      await client.workflow.getHandle(execution.workflowId, execution.runId).terminate(TERMINATE_REASON);
      ended++;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err; // closed meanwhile: nothing to end
    }
  }
  return ended;
}

/**
 * Starts the workflow of each open debt of the tenant (a terminal debt's life is over: it has none). Starting an id
 * that runs already is a no-op, so this may run any number of times.
 */
export function startSeedWorkflows(
  deps: { db: Db; client: Client; lifecycleTaskQueue?: string },
  organizationId: string,
): Promise<BackfillReport> {
  return backfillDebtWorkflows({
    db: deps.db,
    client: deps.client,
    mode: 'sandbox',
    taskQueue: deps.lifecycleTaskQueue,
    organizationId,
  });
}
