/**
 * The outbox consumer that gives every debt its workflow: each `debt.created` starts `debt-<id>` (DECISIONS.md §3).
 *
 * The starts happen after the batch's transaction has committed, never inside it: a transaction held open across
 * calls to Temporal would hold the outbox horizon (cursor.ts) for every consumer of every database on the server for
 * as long as Temporal takes to answer. So that a start cannot be lost in between, the batch's transaction records each
 * debt in `lifecycle_pending_starts`, and the row goes once Temporal has the workflow. Each group of starts runs under
 * a short deadline (START_DEADLINE_MS), so a hung Temporal cannot stall this consumer; a start that fails, times out,
 * or died with its process stays recorded and is tried again after every pass (sweep), by this worker or another, until
 * it succeeds. A second start of the same id is refused by Temporal: every debt gets exactly one.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { roundRobinByOrganization } from '../temporal/fairness';
import { WORKFLOW_TYPES } from '../temporal/names';
import { debtWorkflowStartOptions } from './workflow-start';

export const DEBT_LIFECYCLE_CONSUMER = 'debt-lifecycles';

const START_CONCURRENCY = 50;
/** How long one group of starts may wait for Temporal before it is given up and kept for the next sweep. */
export const START_DEADLINE_MS = 10_000;
/** Recorded starts taken by one sweep, oldest first. */
const SWEEP_BATCH = 500;

export interface DebtLifecycleConsumerOptions {
  mode: Mode;
  /** The mode's database: where the starts still to do are recorded. */
  db: Db;
  /** A client in the mode's namespace. */
  client: Client;
  taskQueue?: string;
  /** Defaults to START_DEADLINE_MS (tests shorten it). */
  startDeadlineMs?: number;
}

interface DebtStart {
  debtId: string;
  organizationId: string;
  requestId: string | null;
}

export function createDebtLifecycleConsumer(options: DebtLifecycleConsumerOptions): OutboxConsumer {
  const { client, db, mode, taskQueue } = options;
  const deadlineMs = options.startDeadlineMs ?? START_DEADLINE_MS;

  async function start(debt: DebtStart): Promise<void> {
    try {
      await client.workflow.start(WORKFLOW_TYPES.debtLifecycle, debtWorkflowStartOptions(debt, mode, taskQueue));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // started before: that is the point
    }
  }

  /**
   * Starts every debt, a group at a time in rounds across organisations, each group under the deadline, and forgets
   * the recorded starts that succeeded; what fails stays recorded for the next sweep, and the first error is thrown.
   */
  async function startAll(batch: DebtStart[]): Promise<void> {
    const debts = roundRobinByOrganization(batch);
    let firstError: Error | undefined;
    for (let i = 0; i < debts.length; i += START_CONCURRENCY) {
      const group = debts.slice(i, i + START_CONCURRENCY);
      const outcomes = await Promise.allSettled(
        group.map((debt) => client.withDeadline(Date.now() + deadlineMs, () => start(debt))),
      );
      const started = group.filter((_, j) => outcomes[j]!.status === 'fulfilled').map((debt) => debt.debtId);
      if (started.length > 0) await db('lifecycle_pending_starts').whereIn('debt_id', started).delete();
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          firstError ??= outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
        }
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  return {
    name: DEBT_LIFECYCLE_CONSUMER,
    // Debts raised before this consumer existed get their workflows from the backfill command, not from history.
    startAt: 'now',
    async consume(trx, events) {
      const created = events.filter((e) => e.type === 'debt.created');
      if (created.length === 0) return undefined;
      const debts = await trx('events')
        .whereIn(
          'id',
          created.map((e) => e.id),
        )
        .select<DebtStart[]>(
          'organization_id as organizationId',
          'request_id as requestId',
          trx.raw(`data -> 'debt' ->> 'id' as "debtId"`),
        );
      await trx('lifecycle_pending_starts')
        .insert(debts.map((d) => ({ debt_id: d.debtId, organization_id: d.organizationId, request_id: d.requestId })))
        .onConflict('debt_id')
        .ignore();
      return () => startAll(debts);
    },
    async sweep() {
      const recorded = await db('lifecycle_pending_starts')
        .orderBy('created_at')
        .limit(SWEEP_BATCH)
        .select<DebtStart[]>('debt_id as debtId', 'organization_id as organizationId', 'request_id as requestId');
      if (recorded.length > 0) await startAll(recorded);
    },
  };
}
