/**
 * A sandbox tenant's `debt-<id>` workflows around a reset: those whose debt was wiped are ended, the new seed's are
 * started. Running ones are found through the visibility API by the `OrganizationId` search attribute (every
 * lifecycle workflow carries it from its start) and kept or ended by whether their debt's row exists, so a retried
 * reset also ends the workflows of a seed that an interrupted attempt had half started.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { backfillDebtWorkflows, type BackfillReport } from '../lifecycle/backfill';
import type { Db } from '../platform/db';
import { isUuid } from '../platform/ids';
import { SEARCH_ATTRIBUTE_KEYS, WORKFLOW_TYPES, workflowIds } from '../temporal/names';

const TERMINATE_REASON = 'sandbox reset: the tenant was wiped and reseeded';

/** Visibility query for the tenant's running lifecycle workflows. */
export function runningDebtWorkflowsQuery(organizationId: string): string {
  return (
    `${SEARCH_ATTRIBUTE_KEYS.organizationId.name} = '${organizationId}' ` +
    `AND WorkflowType = '${WORKFLOW_TYPES.debtLifecycle}' AND ExecutionStatus = 'Running'`
  );
}

/** How long-running work reports that it is alive, and learns that it should stop (an activity's heartbeat). */
export interface Progress {
  heartbeat?: () => void;
  signal?: AbortSignal;
}

/** Terminations in flight at once: a 20,000-debt tenant ends in seconds, without flooding the frontend. */
const TERMINATE_BATCH = 50;

/**
 * Terminates the tenant's running lifecycle workflows whose debt row no longer exists (wiped by a reset); returns how
 * many it ended. A workflow whose row exists is never touched, whoever created the debt and whenever: a debt raised
 * just after the wipe keeps its life. Pages of running workflows are checked against the table,
 * terminated a batch at a time, with a heartbeat after each batch; a cancelled activity stops between batches.
 */
export async function endWipedDebtWorkflows(
  deps: { db: Db; client: Client },
  organizationId: string,
  progress: Progress = {},
): Promise<number> {
  const { db, client } = deps;
  let ended = 0;
  let page: { workflowId: string; runId: string; debtId: string }[] = [];
  const flush = async () => {
    progress.signal?.throwIfAborted();
    const ids = page.map((w) => w.debtId).filter(isUuid);
    const existing = new Set(
      ids.length === 0
        ? []
        : await db('debts').where({ organization_id: organizationId }).whereIn('id', ids).pluck<string[]>('id'),
    );
    const wiped = page.filter((w) => !existing.has(w.debtId));
    page = [];
    const results = await Promise.all(wiped.map((w) => terminate(client, w.workflowId, w.runId)));
    ended += results.filter(Boolean).length;
    progress.heartbeat?.();
  };
  for await (const execution of client.workflow.list({ query: runningDebtWorkflowsQuery(organizationId) })) {
    page.push({ ...execution, debtId: execution.workflowId.slice(DEBT_WORKFLOW_PREFIX.length) });
    if (page.length >= TERMINATE_BATCH) await flush();
  }
  if (page.length > 0) await flush();
  return ended;
}

const DEBT_WORKFLOW_PREFIX = workflowIds.debt('');

/** True if it ended the run; a run closed meanwhile is nothing to end. */
async function terminate(client: Client, workflowId: string, runId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId, runId).terminate(TERMINATE_REASON);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
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
