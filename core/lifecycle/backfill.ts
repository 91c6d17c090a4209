/**
 * Gives every open debt its `debt-<id>` workflow when none runs (operator command `npm run cli -- lifecycle
 * backfill`): debts raised before the lifecycle existed, and debts whose run failed or was terminated (the reuse
 * policy lets those start again). Safe to run any number of times: a debt whose workflow runs is
 * skipped by Temporal (its id is the business id), and debts already in a final state need none. A debt open in the
 * database whose run completed is reported, not restarted: a completed run is a finished debt, and that disagreement
 * is for an operator to look at.
 */
import type { Client } from '@temporalio/client';
import { NON_TERMINAL_STATUSES } from '../debts/debt-status';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { WORKFLOW_TYPES } from '../temporal/names';
import { startOnce } from '../temporal/start-once';
import { debtWorkflowStartOptions } from './workflow-start';

export interface BackfillReport {
  started: number;
  alreadyRunning: number;
  /** Open in the database, but the run completed: listed for an operator, never restarted. */
  completedButOpen: string[];
}

export interface BackfillOptions {
  db: Db;
  client: Client;
  mode: Mode;
  taskQueue?: string;
  /** Only this organisation's debts (an operator fixing one tenant); all of the mode's when absent. */
  organizationId?: string;
}

export async function backfillDebtWorkflows(options: BackfillOptions, batchSize = 500): Promise<BackfillReport> {
  const { db, client, mode, taskQueue, organizationId } = options;
  const report: BackfillReport = { started: 0, alreadyRunning: 0, completedButOpen: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const debts = await db('debts as d')
      .join('organizations as o', 'o.id', 'd.organization_id')
      .where({ 'o.mode': mode, ...(organizationId ? { 'd.organization_id': organizationId } : {}) })
      .whereIn('d.status', NON_TERMINAL_STATUSES)
      .where('d.id', '>', after)
      .orderBy('d.id')
      .limit(batchSize)
      .select<{ debtId: string; organizationId: string }[]>('d.id as debtId', 'd.organization_id as organizationId');
    for (const debt of debts) {
      const options = debtWorkflowStartOptions(debt, mode, taskQueue);
      if (await startOnce(client, WORKFLOW_TYPES.debtLifecycle, options)) {
        report.started++;
        continue;
      }
      const { status } = await client.workflow.getHandle(options.workflowId).describe();
      if (status.name === 'RUNNING') report.alreadyRunning++;
      else report.completedButOpen.push(debt.debtId);
    }
    const last = debts.at(-1);
    if (!last || debts.length < batchSize) return report;
    after = last.debtId;
  }
}
