/**
 * The outbox consumer that gives every debt its workflow: each `debt.created` starts `debt-<id>` (DECISIONS.md §3).
 *
 * The starts happen after the batch's transaction has committed, never inside it: a transaction held open across
 * calls to Temporal would hold the outbox horizon (cursor.ts) for every consumer of every database on the server for
 * as long as Temporal takes to answer. So that a start cannot be lost in between, the batch's transaction records each
 * debt in `lifecycle_pending_starts`, and the row goes once Temporal has the workflow. The consumer then only wakes
 * this process's fair starter (core/temporal/fair-starter.ts), which claims the recorded starts organisation by
 * organisation and makes them in turns under a short deadline each (START_DEADLINE_MS): one tenant's bulk raise
 * neither holds the outbox nor queues another tenant's new debt behind its own, and a hung Temporal holds nothing. A
 * start that fails or times out stays recorded and is claimed again two seconds later; one that died with its process
 * once its lease runs out, by this worker or another. A second start of the same id is refused by Temporal: every debt gets exactly one.
 */
import type { Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Mode } from '../platform/mode';
import { createFairStarter, type FairStarterOptions } from '../temporal/fair-starter';
import { WORKFLOW_TYPES } from '../temporal/names';
import { startOnce } from '../temporal/start-once';
import { claimOwedStarts, shortenOwedClaims, type OwedStartTable } from '../temporal/owed-start-claims';
import { debtWorkflowStartOptions } from './workflow-start';

export const DEBT_LIFECYCLE_CONSUMER = 'debt-lifecycles';

/** How long one start may wait for Temporal before it is given up and left for a later claim. */
export const START_DEADLINE_MS = 10_000;

/** How the lifecycle starter runs; the bench and docs/operators/scaling.md explain the numbers. */
export const LIFECYCLE_START_LOOP: Omit<FairStarterOptions, 'logger'> = {
  concurrency: 16,
  perOrganization: 50,
  leaseMs: 30_000,
};

export interface DebtLifecycleConsumerOptions {
  mode: Mode;
  /** The database where the starts still to do are recorded. */
  db: Db;
  /** A client in the mode's namespace. */
  client: Client;
  logger: Logger;
  taskQueue?: string;
  /** Defaults to START_DEADLINE_MS (tests shorten it). */
  startDeadlineMs?: number;

  /** Tests shorten the lease. */
  startLoop?: Partial<Omit<FairStarterOptions, 'logger'>>;
}

export interface DebtStart {
  debtId: string;
  organizationId: string;
  requestId: string | null;
}

/** Every row is owed: it goes once its workflow has started. */
const PENDING_STARTS: OwedStartTable = {
  table: 'lifecycle_pending_starts',
  key: 'debt_id',
  owed: () => 'true',
  leaseColumn: 'claimed_until',
  columns: ['debt_id', 'organization_id', 'request_id', 'created_at'],
};

/** Claims, for the lease, up to `perOrganization` of each organisation's oldest recorded starts (owed-start-claims.ts). */
export async function claimLifecycleStarts(
  db: Db,
  mode: Mode,
  perOrganization: number,
  skip: string[],
  leaseMs: number,
): Promise<DebtStart[]> {
  const rows = await claimOwedStarts<{
    debt_id: string;
    organization_id: string;
    request_id: string | null;
    created_at: Date;
  }>(db, PENDING_STARTS, mode, perOrganization, skip, leaseMs);
  return rows.map((r) => ({ debtId: r.debt_id, organizationId: r.organization_id, requestId: r.request_id }));
}

export function createDebtLifecycleConsumer(options: DebtLifecycleConsumerOptions): OutboxConsumer {
  const { client, db, mode, taskQueue } = options;
  const deadlineMs = options.startDeadlineMs ?? START_DEADLINE_MS;

  async function start(debt: DebtStart): Promise<void> {
    await startOnce(client, WORKFLOW_TYPES.debtLifecycle, debtWorkflowStartOptions(debt, mode, taskQueue), deadlineMs);
  }

  const loop = createFairStarter<DebtStart>(
    {
      claim: (perOrganization, skip, leaseMs) => claimLifecycleStarts(db, mode, perOrganization, skip, leaseMs),
      start,
      async recordStarted(debts) {
        await db('lifecycle_pending_starts')
          .whereIn(
            'debt_id',
            debts.map((d) => d.debtId),
          )
          .delete();
      },
      release: (debts, afterMs) =>
        shortenOwedClaims(
          db,
          PENDING_STARTS,
          debts.map((d) => d.debtId),
          afterMs,
        ),
    },
    {
      ...LIFECYCLE_START_LOOP,
      ...options.startLoop,
      logger: options.logger.child({ component: 'lifecycle-starter', mode }),
    },
  );

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
      return async () => loop.kick();
    },
    // After every pass of the relay: starts owed by another process that died, or whose lease ran out.
    sweep: async () => loop.kick(),
    stop: () => loop.stop(),
  };
}
