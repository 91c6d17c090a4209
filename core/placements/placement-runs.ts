/**
 * The API's side of a placement's workflow: `placement-<id>` on the placements task queue, found by its organisation
 * and status, fair to other tenants by its fairness key (core/temporal/fairness.ts). Started before the placement's
 * row commits (its first activity waits for the row), with the existing run kept when the id is started again: a
 * retried request (same Idempotency-Key, same placement id) never starts a second import.
 */
import type { Client } from '@temporalio/client';
import { PLACEMENT_PRIORITY_KEY, tenantPriority } from '../temporal/fairness';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';

export interface PlacementRuns {
  start(organizationId: string, placementId: string): Promise<void>;
}

/** The workflow's input (its type lives with the workflow, which core/ may not import): ids only, never a row. */
interface PlacementWorkflowInput {
  organizationId: string;
  placementId: string;
}

export function createPlacementRuns(deps: { client: Client; taskQueue?: string }): PlacementRuns {
  const taskQueue = deps.taskQueue ?? TASK_QUEUES.placements;
  return {
    async start(organizationId, placementId) {
      await deps.client.workflow.start(WORKFLOW_TYPES.placement, {
        taskQueue,
        workflowId: workflowIds.placement(placementId),
        args: [{ organizationId, placementId } satisfies PlacementWorkflowInput],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: organizationId },
          { key: SEARCH_ATTRIBUTE_KEYS.placementStatus, value: 'Validating' },
        ],
        // Ahead of its own debts' lifecycles where both share a queue (runs started before the placements queue, and
        // the tests' single queue): behind them (same fairness key, FIFO within it) each chunk's workflow task waited
        // for every lifecycle the import had already started.
        priority: { ...tenantPriority(organizationId), priorityKey: PLACEMENT_PRIORITY_KEY },
      });
    },
  };
}
