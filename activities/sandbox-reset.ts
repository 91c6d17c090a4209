/**
 * The sandbox reset's one activity: wipe the tenant, reseed it, end its old lifecycle workflows and start the new
 * seed's (core/sandbox/reset-tenant.ts). Idempotent, so Temporal may retry it after any interruption.
 */
import { Context } from '@temporalio/activity';
import type { Logger } from '../core/platform/logger';
import { startSeedWorkflows } from '../core/sandbox/debt-workflows';
import { resetSandboxTenant, type SandboxResetDeps, type SandboxResetReport } from '../core/sandbox/reset-tenant';

export type { SandboxResetReport };

export interface SandboxResetActivities {
  resetSandboxTenant: (organizationId: string) => Promise<SandboxResetReport>;
  /** Starts the workflow of each open debt of the tenant (its seed's, after sign-up); those running are left alone. */
  startTenantDebtWorkflows: (organizationId: string) => Promise<{ started: number }>;
}

export function createSandboxResetActivities(deps: SandboxResetDeps & { logger?: Logger }): SandboxResetActivities {
  return {
    async resetSandboxTenant(organizationId) {
      // The run id names this reset across attempts (a run resets once, then continues as new); the heartbeat tells
      // Temporal the attempt is alive through a long termination pass, and a cancellation stops it between batches.
      const activity = Context.current();
      const report = await resetSandboxTenant(deps, organizationId, new Date(), {
        ...(activity.info.workflowExecution ? { resetId: activity.info.workflowExecution.runId } : {}),
        heartbeat: () => activity.heartbeat(),
        signal: activity.cancellationSignal,
      });
      // Counts and ids only: a sandbox's data is fictional, but logs never carry tenant content.
      const { seededDebtIds: _ids, ...summary } =
        report.outcome === 'reset' ? report : { ...report, seededDebtIds: [] };
      deps.logger?.info({ organizationId, ...summary }, 'sandbox tenant reset');
      return report;
    },
    async startTenantDebtWorkflows(organizationId) {
      const { started } = await startSeedWorkflows(deps, organizationId);
      return { started };
    },
  };
}
