/**
 * The API's side of the sandbox reset: the three messages it sends to a tenant's `sandbox-reset-<orgId>` workflow.
 * Every one is a signal-with-start, so a tenant whose workflow is missing (created by the CLI, or before resets
 * existed) gets one on first use, and a message never fails because the workflow was not started yet.
 */
import type { Client } from '@temporalio/client';
import { tenantPriority } from '../temporal/fairness';
import {
  SANDBOX_RESET_SIGNALS,
  SEARCH_ATTRIBUTE_KEYS,
  TASK_QUEUES,
  WORKFLOW_TYPES,
  workflowIds,
} from '../temporal/names';

export interface SandboxResets {
  /** At sign-up: starts the tenant's workflow (armed from now). Returns its id. */
  start(organizationId: string): Promise<string>;
  /** An authenticated request was made (callers debounce: see activity-touch.ts). */
  recordUse(organizationId: string): Promise<void>;
  /** Reset the tenant now (POST /v1/sandbox/reset). Returns the workflow's id. */
  resetNow(organizationId: string): Promise<string>;
}

/** What the workflow's start needs; the input type lives with the workflow, which core/ may not import. */
interface ResetWorkflowInput {
  organizationId: string;
}

export function createSandboxResets(deps: { client: Client; taskQueue?: string }): SandboxResets {
  const { client } = deps;
  const taskQueue = deps.taskQueue ?? TASK_QUEUES.sandbox;

  const startOptions = (organizationId: string) => ({
    taskQueue,
    workflowId: workflowIds.sandboxReset(organizationId),
    args: [{ organizationId } satisfies ResetWorkflowInput],
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: organizationId }],
    priority: tenantPriority(organizationId),
  });

  async function signal(organizationId: string, signalName: string): Promise<string> {
    const handle = await client.workflow.signalWithStart(WORKFLOW_TYPES.sandboxReset, {
      ...startOptions(organizationId),
      signal: signalName,
      signalArgs: [],
    });
    return handle.workflowId;
  }

  return {
    async start(organizationId) {
      const handle = await client.workflow.start(WORKFLOW_TYPES.sandboxReset, {
        ...startOptions(organizationId),
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return handle.workflowId;
    },
    recordUse: async (organizationId) => void (await signal(organizationId, SANDBOX_RESET_SIGNALS.used)),
    resetNow: (organizationId) => signal(organizationId, SANDBOX_RESET_SIGNALS.resetNow),
  };
}
