/**
 * The outbox consumer that gives every debt its workflow: each `debt.created` starts `debt-<id>` (DECISIONS.md §3).
 *
 * The starts happen after the batch's transaction has committed, never inside it: a transaction held open across
 * calls to Temporal would hold the outbox horizon (cursor.ts) for every consumer of every database on the server for
 * as long as Temporal takes to answer. So that a start cannot be lost in between, the batch's transaction records each
 * debt in `lifecycle_pending_starts`, and the row goes once the workflow has run its first task. The consumer then only wakes
 * this process's fair starter (core/temporal/fair-starter.ts), which claims the recorded starts organisation by
 * organisation and makes them in turns under a short deadline each (START_DEADLINE_MS): one tenant's bulk raise
 * neither holds the outbox nor queues another tenant's new debt behind its own, and a hung Temporal holds nothing. A
 * start that fails or times out stays recorded and is claimed again two seconds later; one that died with its process
 * once its lease runs out, by this worker or another. A second start of the same id is refused by Temporal: every debt gets exactly one.
 *
 * Admission by progress: a started row stays, marked `started_at`, until the workflow's first task loads the debt's
 * state and deletes it (activities/debt-lifecycle.ts); the starter claims no more of an organisation's starts than
 * keeps those between claim and first task within LIFECYCLE_IN_FLIGHT_PER_ORGANIZATION, so a bulk raise waits here
 * rather than in the Temporal server's queues, where every other tenant's new workflow would wait behind it.
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

/**
 * An organisation's lifecycle starts between claim and first task, at most: above what the server clears in the time
 * a start takes to run its first task, so a burst's own rate does not fall (docs/operators/scaling.md).
 */
export const LIFECYCLE_IN_FLIGHT_PER_ORGANIZATION = 32;

/** A started row whose first task never deleted it (its workflow already existed, or was ended first) goes after this. */
const STALE_STARTED_MS = 10 * 60_000;
const PURGE_STALE_EVERY_MS = 60_000;

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
  /** Tests lower the bound (default LIFECYCLE_IN_FLIGHT_PER_ORGANIZATION). */
  inFlightPerOrganization?: number;
}

export interface DebtStart {
  debtId: string;
  organizationId: string;
  requestId: string | null;
}

/**
 * A row is owed until its workflow has started; in flight while claimed (a live lease) or started in the last minute
 * and its first task not yet run (which deletes the row). After a minute it stops counting: a workflow whose first
 * task never comes cannot hold its organisation's other starts. `(started_at is null) is true` keeps the count on
 * `lifecycle_pending_starts_in_flight`: written plainly, the owed rows' partial index serves that arm too, and with
 * statistics made before a burst (that index looking empty) the planner read every owed row of the organisation.
 */
function lifecycleStartsInFlight(alias: string): string {
  return `(${alias}.started_at > now() - interval '1 minute'
     or ((${alias}.started_at is null) is true and ${alias}.claimed_until > now()))`;
}

const PENDING_STARTS: OwedStartTable = {
  table: 'lifecycle_pending_starts',
  key: 'debt_id',
  owed: (t) => `${t}.started_at is null`,
  leaseColumn: 'claimed_until',
  columns: ['debt_id', 'organization_id', 'request_id', 'created_at', 'bulk'],
  inFlight: lifecycleStartsInFlight,
};

/**
 * Claims, for the lease, up to `perOrganization` of each organisation's next recorded starts (not bulk first, then
 * oldest), and no more than keeps its starts between claim and first task within `inFlightPerOrganization`
 * (owed-start-claims.ts).
 */
export async function claimLifecycleStarts(
  db: Db,
  mode: Mode,
  perOrganization: number,
  skip: string[],
  leaseMs: number,
  inFlightPerOrganization = LIFECYCLE_IN_FLIGHT_PER_ORGANIZATION,
): Promise<DebtStart[]> {
  const rows = await claimOwedStarts<{
    debt_id: string;
    organization_id: string;
    request_id: string | null;
    created_at: Date;
    bulk: boolean;
  }>(db, PENDING_STARTS, mode, perOrganization, skip, leaseMs, inFlightPerOrganization);
  return rows.map((r) => ({ debtId: r.debt_id, organizationId: r.organization_id, requestId: r.request_id }));
}

export function createDebtLifecycleConsumer(options: DebtLifecycleConsumerOptions): OutboxConsumer {
  const { client, db, mode, taskQueue } = options;
  const deadlineMs = options.startDeadlineMs ?? START_DEADLINE_MS;
  const inFlightPerOrganization = options.inFlightPerOrganization ?? LIFECYCLE_IN_FLIGHT_PER_ORGANIZATION;
  let lastPurge = 0;

  async function start(debt: DebtStart): Promise<void> {
    const started = await startOnce(
      client,
      WORKFLOW_TYPES.debtLifecycle,
      debtWorkflowStartOptions(debt, mode, taskQueue),
      deadlineMs,
    );
    // A workflow that already existed has run its first task (or will, and find no row): nothing left to wait for.
    if (!started) await db('lifecycle_pending_starts').where({ debt_id: debt.debtId }).delete();
  }

  /** Started rows whose first task never came to delete them, once a minute at most. */
  async function purgeStale(): Promise<void> {
    if (Date.now() - lastPurge < PURGE_STALE_EVERY_MS) return;
    lastPurge = Date.now();
    await db('lifecycle_pending_starts')
      .where('started_at', '<', new Date(Date.now() - STALE_STARTED_MS))
      .delete()
      .catch((err: unknown) => options.logger.warn({ err, mode }, 'could not purge stale lifecycle starts'));
  }

  const loop = createFairStarter<DebtStart>(
    {
      claim: (perOrganization, skip, leaseMs) =>
        claimLifecycleStarts(db, mode, perOrganization, skip, leaseMs, inFlightPerOrganization),
      start,
      // Kept until the workflow's first task deletes it: in flight meanwhile.
      async recordStarted(debts) {
        await db('lifecycle_pending_starts')
          .whereIn(
            'debt_id',
            debts.map((d) => d.debtId),
          )
          .update({ started_at: db.fn.now(), claimed_until: null });
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
        .select<(DebtStart & { bulk: boolean })[]>(
          'organization_id as organizationId',
          'request_id as requestId',
          'bulk',
          trx.raw(`data -> 'debt' ->> 'id' as "debtId"`),
        );
      // A placement's debts are bulk work (core/events/bulk-work.ts): started after the organisation's others.
      await trx('lifecycle_pending_starts')
        .insert(
          debts.map((d) => ({
            debt_id: d.debtId,
            organization_id: d.organizationId,
            request_id: d.requestId,
            bulk: d.bulk,
          })),
        )
        .onConflict('debt_id')
        .ignore();
      return async () => loop.kick();
    },
    // After every pass of the relay: starts owed by another process that died, or whose lease ran out.
    async sweep() {
      loop.kick();
      await purgeStale();
    },
    stop: () => loop.stop(),
  };
}
