/**
 * How a debt's workflow is started, in one place for the outbox consumer (on `debt.created`) and the triggers
 * (update-with-start, for a trigger that arrives before the consumer ran). The workflow id is the business id, so
 * a second start while one runs is refused by Temporal rather than run twice. A run that completed (a finished debt)
 * keeps its id closed: a trigger must not bring a closed debt back to life. A run that failed or was terminated (an
 * operator's action, a bug) may be started again, loading the debt's state from its row, so a trigger or the backfill
 * brings the debt's life back instead of answering 503 forever.
 */
import { WithStartWorkflowOperation, type WorkflowStartOptions } from '@temporalio/client';
import type { Mode } from '../platform/mode';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import { tenantPriority } from '../temporal/fairness';
import type { DebtLifecycleStart } from './model';

export function debtWorkflowStartOptions(
  debt: { debtId: string; organizationId: string; requestId?: string | null },
  mode: Mode,
  taskQueue: string = TASK_QUEUES.lifecycle,
): WorkflowStartOptions & { args: [DebtLifecycleStart] } {
  return {
    taskQueue,
    workflowId: workflowIds.debt(debt.debtId),
    args: [{ debtId: debt.debtId, organizationId: debt.organizationId, sandbox: mode === 'sandbox' }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    priority: tenantPriority(debt.organizationId),
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: debt.organizationId },
      { key: SEARCH_ATTRIBUTE_KEYS.debtId, value: debt.debtId },
      // The request that created the debt, when the start comes from its `debt.created` event.
      ...(debt.requestId ? [{ key: SEARCH_ATTRIBUTE_KEYS.requestId, value: debt.requestId }] : []),
    ],
  };
}

/** Update-with-start: the update goes to the running workflow, or to one started for it now. */
export function startDebtWorkflowOperation(
  debt: { debtId: string; organizationId: string },
  mode: Mode,
  taskQueue?: string,
) {
  return new WithStartWorkflowOperation(WORKFLOW_TYPES.debtLifecycle, {
    ...debtWorkflowStartOptions(debt, mode, taskQueue),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
