/**
 * The outbox consumer that gives every debt its workflow: each `debt.created` starts `debt-<id>` (DECISIONS.md §3).
 *
 * The starts happen after the batch's transaction has committed, never inside it: a transaction held open across
 * calls to Temporal would hold the outbox horizon (cursor.ts) for every consumer of every database on the server for
 * as long as Temporal takes to answer. Each batch of starts runs under a short deadline (START_DEADLINE_MS), so a hung
 * Temporal cannot stall this consumer either. A start that fails or times out is kept and tried again after every
 * pass (sweep) until it succeeds; a start lost with the process (it died between the commit and the start) is covered
 * by the triggers' update-with-start (workflow-start.ts), which starts the workflow on the debt's first trigger, and by
 * the backfill (`npm run cli -- lifecycle backfill`). A second start of the same id is refused by Temporal: every debt
 * gets exactly one.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Mode } from '../platform/mode';
import { WORKFLOW_TYPES } from '../temporal/names';
import { debtWorkflowStartOptions } from './workflow-start';

export const DEBT_LIFECYCLE_CONSUMER = 'debt-lifecycles';

const START_CONCURRENCY = 50;
/** How long one group of starts may wait for Temporal before it is given up and kept for the next sweep. */
export const START_DEADLINE_MS = 10_000;
/** Starts kept for the sweep at most; past it the oldest are dropped (the backfill and the triggers cover them). */
const MAX_KEPT_STARTS = 100_000;

export interface DebtLifecycleConsumerOptions {
  mode: Mode;
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
  const { client, mode, taskQueue } = options;
  const deadlineMs = options.startDeadlineMs ?? START_DEADLINE_MS;
  /** Starts not yet done (failed or timed out), by debt id, in the order they were first tried. */
  const kept = new Map<string, DebtStart>();

  async function start(debt: DebtStart): Promise<void> {
    try {
      await client.workflow.start(WORKFLOW_TYPES.debtLifecycle, debtWorkflowStartOptions(debt, mode, taskQueue));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // started before: that is the point
    }
  }

  /** Starts every debt, a group at a time, each group under the deadline; what fails is kept and the first error thrown. */
  async function startAll(debts: DebtStart[]): Promise<void> {
    for (const debt of debts) kept.set(debt.debtId, debt);
    while (kept.size > MAX_KEPT_STARTS) kept.delete(kept.keys().next().value!);
    let firstError: Error | undefined;
    for (let i = 0; i < debts.length; i += START_CONCURRENCY) {
      const group = debts.slice(i, i + START_CONCURRENCY);
      const outcomes = await Promise.allSettled(
        group.map((debt) => client.withDeadline(Date.now() + deadlineMs, () => start(debt))),
      );
      outcomes.forEach((outcome, j) => {
        if (outcome.status === 'fulfilled') kept.delete(group[j]!.debtId);
        else firstError ??= outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
      });
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
      return () => startAll(debts);
    },
    async sweep() {
      if (kept.size > 0) await startAll([...kept.values()]);
    },
  };
}
