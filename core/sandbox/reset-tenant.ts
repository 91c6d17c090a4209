/**
 * The sandbox reset (DECISIONS.md §6) as one idempotent step, run by the `sandbox-reset-<orgId>` workflow's activity:
 * 1. wipe the tenant's data in short batches (wipe.ts), then, in one transaction, wipe what is left (written meanwhile)
 *    and seed it again (seed.ts): a reset interrupted before that commit is continued by the retry, one interrupted
 *    after it is not wiped again (below); the wiped placements' files are deleted from the store after their rows;
 * 2. end the tenant's running lifecycle workflows whose debt row is gone (found by search attribute, so those of a
 *    previous attempt's seed go too; a debt raised since the wipe keeps its workflow);
 * 3. start the open debts' workflows (a no-op for those already running).
 * A retried attempt of the same reset (`resetId`: the reset workflow's run, which resets once) finds its id recorded
 * on the organisation by the first attempt's commit and does not wipe again: it only finishes steps 2 and 3, so it
 * never undoes the seed the tenant may already be using.
 * Only sandbox organisations are ever wiped; a missing organisation (deleted by an operator) is nothing to do.
 */
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { deleteKeysNoRowNeeds } from '../documents/orphan-sweep';
import type { DocumentStore } from '../documents/store';
import type { Db } from '../platform/db';
import { endWipedDebtWorkflows, startSeedWorkflows, type Progress } from './debt-workflows';
import { recordResetDone } from './reset-status';
import { seedTenant } from './seed';
import {
  emptyWipe,
  lockTenantForReset,
  wipeTenantData,
  wipeTenantDataInBatches,
  type WipedFiles,
  type WipedTable,
} from './wipe';

export interface SandboxResetDeps {
  db: Db;
  /** A client in the sandbox namespace. */
  client: Client;
  /** Where the seed's debt workflows run; the `lifecycle` queue unless a test says otherwise. */
  lifecycleTaskQueue?: string;
  /**
   * Where the seed's sample agreements are stored, and the tenant's placement files (deleted with their rows); without
   * it the seed attaches none and the files are left to the orphan sweep.
   */
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

export interface ResetOptions extends Progress {
  /** Names this reset across its attempts (the reset workflow's run id); without it every call wipes. */
  resetId?: string;
}

export async function resetSandboxTenant(
  deps: SandboxResetDeps,
  organizationId: string,
  asOf: Date,
  options: ResetOptions = {},
): Promise<SandboxResetReport> {
  const { db } = deps;
  const organization = await db('organizations').where({ id: organizationId }).first('mode');
  if (!organization) return { outcome: 'skipped', reason: 'organization not found' };
  if (organization.mode !== 'sandbox') {
    throw ApplicationFailure.nonRetryable(`organisation ${organizationId} is not a sandbox tenant`, 'NotSandboxTenant');
  }
  const done = await db('organizations').where({ id: organizationId }).first('sandbox_reset_run_id');
  const alreadyReset = options.resetId !== undefined && done?.sandbox_reset_run_id === options.resetId;
  // The bulk of the wipe in short batches; the transaction below wipes what is left and seeds, atomically.
  const files: WipedFiles = [];
  const wipedBefore = alreadyReset
    ? emptyWipe()
    : await wipeTenantDataInBatches(db, organizationId, options.heartbeat, files);
  await deletePlacementFiles(deps, files, options);
  const { removed, seededDebtIds } = await db.transaction(async (trx) => {
    await lockTenantForReset(trx, organizationId);
    const done = await trx('organizations').where({ id: organizationId }).first('sandbox_reset_run_id');
    if (options.resetId && done?.sandbox_reset_run_id === options.resetId) {
      return { removed: null, seededDebtIds: [] }; // this reset committed in an earlier attempt
    }
    const wiped = await wipeTenantData(trx, organizationId, files);
    const seeded = await seedTenant(trx, organizationId, asOf, deps.documents);
    await recordResetDone(trx, organizationId); // what GET /v1/sandbox/reset shows as the last reset
    if (options.resetId) {
      await trx('organizations').where({ id: organizationId }).update({ sandbox_reset_run_id: options.resetId });
    }
    return { removed: wiped, seededDebtIds: seeded.debtIds };
  });
  options.heartbeat?.();
  await deletePlacementFiles(deps, files, options);
  const workflowsEnded = await endWipedDebtWorkflows(deps, organizationId, options);
  const { started } = await startSeedWorkflows(deps, organizationId);
  return {
    outcome: 'reset',
    removed: addWipes(wipedBefore, removed ?? emptyWipe()),
    seededDebtIds,
    workflowsEnded,
    workflowsStarted: started,
  };
}

/**
 * Deletes the stored files of the placements just wiped (their rows committed gone, so no new reader finds them; a
 * running import's next step finds its placement gone and ends). A key some row still names (the same bytes uploaded
 * again since, as a placement or a document: keys are content addresses) stays. Without a store, or after a crash,
 * they are orphans the retention sweep deletes.
 */
async function deletePlacementFiles(deps: SandboxResetDeps, files: WipedFiles, progress: Progress): Promise<void> {
  const keys = [...new Set(files.splice(0))];
  if (!deps.documents || keys.length === 0) return;
  await deleteKeysNoRowNeeds(deps.db, deps.documents, keys, progress.heartbeat);
}

function addWipes(a: Record<WipedTable, number>, b: Record<WipedTable, number>): Record<WipedTable, number> {
  return Object.fromEntries(Object.entries(a).map(([table, n]) => [table, n + b[table as WipedTable]])) as Record<
    WipedTable,
    number
  >;
}
