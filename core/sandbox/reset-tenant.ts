/**
 * The sandbox reset (DECISIONS.md §6) as one idempotent step, run by the `sandbox-reset-<orgId>` workflow's activity:
 * 1. in one database transaction, wipe the tenant's data (wipe.ts) and seed it again (seed.ts): a reset interrupted
 *    before the commit left nothing, one interrupted after it is simply done again;
 * 2. end the tenant's running lifecycle workflows other than the new seed's (found by search attribute, so those of
 *    a previous attempt's seed go too);
 * 3. start the new seed's workflows (a no-op for those already running).
 * Only sandbox organisations are ever wiped; a missing organisation (deleted by an operator) is nothing to do.
 */
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DocumentStore } from '../documents/store';
import type { Db } from '../platform/db';
import { endDebtWorkflows, startSeedWorkflows } from './debt-workflows';
import { seedTenant } from './seed';
import { lockTenantForReset, wipeTenantData, type WipedTable } from './wipe';

export interface SandboxResetDeps {
  db: Db;
  /** A client in the sandbox namespace. */
  client: Client;
  /** Where the seed's debt workflows run; the `lifecycle` queue unless a test says otherwise. */
  lifecycleTaskQueue?: string;
  /** Where the seed's sample agreements are stored; without it the seed attaches none. */
  documents?: DocumentStore;
}

export type SandboxResetReport =
  | { outcome: 'skipped'; reason: 'organization not found' }
  | {
      outcome: 'reset';
      removed: Record<WipedTable, number>;
      seededDebtIds: string[];
      workflowsEnded: number;
      workflowsStarted: number;
    };

export async function resetSandboxTenant(
  deps: SandboxResetDeps,
  organizationId: string,
  asOf: Date,
): Promise<SandboxResetReport> {
  const { db } = deps;
  const organization = await db('organizations').where({ id: organizationId }).first('mode');
  if (!organization) return { outcome: 'skipped', reason: 'organization not found' };
  if (organization.mode !== 'sandbox') {
    throw ApplicationFailure.nonRetryable(`organisation ${organizationId} is not a sandbox tenant`, 'NotSandboxTenant');
  }
  const { removed, seeded } = await db.transaction(async (trx) => {
    await lockTenantForReset(trx, organizationId);
    const wiped = await wipeTenantData(trx, organizationId);
    return { removed: wiped, seeded: await seedTenant(trx, organizationId, asOf, deps.documents) };
  });
  const workflowsEnded = await endDebtWorkflows(deps.client, organizationId, seeded.debtIds);
  const { started } = await startSeedWorkflows(deps, organizationId);
  return { outcome: 'reset', removed, seededDebtIds: seeded.debtIds, workflowsEnded, workflowsStarted: started };
}
