/**
 * The outbox consumer that gives every debt its workflow: each `debt.created` starts `debt-<id>` (DECISIONS.md §3).
 * The start happens inside the batch's transaction, before the cursor moves, so a crash at any point leaves the
 * batch to be taken again, and a second start of the same id is refused by Temporal: every debt gets exactly one.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Mode } from '../platform/mode';
import { WORKFLOW_TYPES } from '../temporal/names';
import { debtWorkflowStartOptions } from './workflow-start';

export const DEBT_LIFECYCLE_CONSUMER = 'debt-lifecycles';

const START_CONCURRENCY = 50;

export interface DebtLifecycleConsumerOptions {
  mode: Mode;
  /** A client in the mode's namespace. */
  client: Client;
  taskQueue?: string;
}

export function createDebtLifecycleConsumer(options: DebtLifecycleConsumerOptions): OutboxConsumer {
  const { client, mode, taskQueue } = options;

  async function start(debt: { debtId: string; organizationId: string; requestId: string | null }): Promise<void> {
    try {
      await client.workflow.start(WORKFLOW_TYPES.debtLifecycle, debtWorkflowStartOptions(debt, mode, taskQueue));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // started before: that is the point
    }
  }

  return {
    name: DEBT_LIFECYCLE_CONSUMER,
    // Debts raised before this consumer existed get their workflows from the backfill command, not from history.
    startAt: 'now',
    async consume(trx, events) {
      const created = events.filter((e) => e.type === 'debt.created');
      if (created.length === 0) return;
      const rows = await trx('events')
        .whereIn(
          'id',
          created.map((e) => e.id),
        )
        .select<{ organizationId: string; debtId: string; requestId: string | null }[]>(
          'organization_id as organizationId',
          'request_id as requestId',
          trx.raw(`data -> 'debt' ->> 'id' as "debtId"`),
        );
      for (let i = 0; i < rows.length; i += START_CONCURRENCY) {
        await Promise.all(rows.slice(i, i + START_CONCURRENCY).map(start));
      }
    },
  };
}
