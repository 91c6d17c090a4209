/**
 * The outbox horizon cannot be held hostage: an open transaction anywhere on the server holds every
 * consumer's horizon back (core/events/cursor.ts), so no consumer keeps its batch's transaction open across a call to
 * Temporal, and the application's role cuts a session that idles inside a transaction.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client, Connection } from '@temporalio/client';
import type { OutboxConsumer, OutboxEvent } from '../../core/events/consumer';
import { ensureCursor } from '../../core/events/cursor';
import { recordEvent } from '../../core/events/outbox';
import { takeBatch } from '../../core/events/relay';
import { createDebtLifecycleConsumer } from '../../core/lifecycle/lifecycle-consumer';
import { NAMESPACES, workflowIds } from '../../core/temporal/names';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { startTcpGate, type TcpGate } from '../support/tcp-gate';
import { startDevServer, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { silentLogger } from '../support/logger';

/** A consumer of its own (own cursor) that only records what it is given. */
function recordingConsumer(): OutboxConsumer & { seen: OutboxEvent[] } {
  const seen: OutboxEvent[] = [];
  return {
    name: `horizon-recorder-${randomUUID()}`,
    startAt: 'now',
    seen,
    consume(_trx, events) {
      seen.push(...events);
      return Promise.resolve();
    },
  };
}

async function idleInTransactionSessions(): Promise<number> {
  const { rows } = await testDb().raw<{ rows: { count: number }[] }>(
    `select count(*)::int as count from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`,
  );
  return rows[0]!.count;
}

describe('the outbox horizon cannot be held hostage', function () {
  this.timeout(120_000);

  describe('the lifecycle consumer with Temporal hung', () => {
    let temporal: TestWorkflowEnvironment;
    let gate: TcpGate;
    let connection: Connection;

    before(async () => {
      temporal = await startDevServer();
      gate = await startTcpGate(temporal.address);
      connection = await Connection.connect({ address: gate.address });
    });
    after(async () => {
      gate?.release();
      await connection?.close();
      await gate?.close();
      await temporal?.teardown();
    });

    it('commits its batch and goes on while its start waits on a hung Temporal; the start is made once Temporal answers', async () => {
      const client = new Client({ connection, namespace: NAMESPACES.production });
      const lifecycle = createDebtLifecycleConsumer({
        logger: silentLogger('test'),
        mode: 'production',
        db: testDb(),
        client,
        taskQueue: uniqueTaskQueue('horizon'), // no worker: the workflow only has to exist
        startDeadlineMs: 3_000,
        startLoop: { leaseMs: 4_000 }, // past the deadline: the failed start is claimed again soon after
      });
      // Its own cursor, so the shared `debt-lifecycles` cursor of this database is left alone.
      const consumer: OutboxConsumer = { ...lifecycle, name: `debt-lifecycles-horizon-${randomUUID()}` };
      const other = recordingConsumer();
      await ensureCursor(testDb(), consumer, 'production');
      await ensureCursor(testDb(), other, 'production');
      const tenant = await createTestTenant();
      const debtId = randomUUID();
      await testDb().transaction((trx) =>
        recordEvent(trx, tenant.organization.id, 'debt.created', { debt: { id: debtId } }),
      );
      const pending = () =>
        testDb()('lifecycle_pending_starts')
          .where({ debt_id: debtId })
          .first<{ claimed_until: Date | null; started_at: Date | null }>();

      gate.hang();
      // The batch commits and the consumer is free at once: its start is the fair starter's, which claims it.
      while ((await takeBatch(testDb(), 'production', consumer, 500)) > 0);
      await waitFor(async () => (await pending())?.claimed_until != null, {
        what: 'the starter to claim the debt’s start while Temporal hangs',
      });
      expect(await idleInTransactionSessions()).to.equal(0);
      // An event committed now is below the horizon at once: another consumer takes it.
      const later = await testDb().transaction((trx) => recordEvent(trx, tenant.organization.id, 'test.ping', {}));
      while ((await takeBatch(testDb(), 'production', other, 500)) > 0);
      expect(other.seen.map((e) => e.id)).to.include(later.id);
      expect(await pending(), 'the start is still owed while Temporal hangs').to.not.equal(undefined);

      // The start gives up at its deadline (3 s) and stays owed; once its lease (4 s) has run out and Temporal answers
      // again, a sweep claims it again and makes it.
      await waitFor(
        async () => {
          const { rows } = await testDb().raw<{ rows: { over: boolean }[] }>(
            `select claimed_until < now() as over from lifecycle_pending_starts where debt_id = ?`,
            [debtId],
          );
          return rows[0]?.over === true;
        },
        {
          what: 'the claim’s lease to run out, past the start’s deadline',
          timeoutMs: 15_000,
        },
      );
      expect(await pending(), 'a start that gave up stays owed').to.not.equal(undefined);
      gate.release();
      const handle = client.workflow.getHandle(workflowIds.debt(debtId));
      // The request the gate held may reach Temporal once released and start the workflow by itself, after its caller
      // gave up on it. Then the next claim's start finds the workflow there and deletes the row (a workflow that
      // already existed needs no first-task wait); otherwise the claim's own start is recorded as made, and the row is
      // kept until the workflow's first task takes it (this test runs no worker). Either way the start is no longer owed.
      const made = async () => {
        const row = await pending();
        return row === undefined || row.started_at instanceof Date;
      };
      await waitFor(
        async () => {
          await consumer.sweep?.();
          const running = (await handle.describe().catch(() => undefined))?.status.name === 'RUNNING';
          return running && (await made());
        },
        { what: 'a later claim to start the kept workflow, or find it started', timeoutMs: 30_000, intervalMs: 500 },
      );
      await consumer.stop?.();
      expect(await made(), 'the start is no longer owed').to.equal(true);
      await handle.terminate('test done');
    });
  });

  it("cuts a session that idles inside a transaction past the role's idle_in_transaction_session_timeout", async function () {
    this.timeout(90_000);
    const session = new pg.Client({ connectionString: testEnv.databaseUrl });
    session.on('error', () => undefined); // the server ends the session: that is the point
    await session.connect();
    try {
      const { rows } = await session.query<{ idle: string; statement: string; pid: number }>(
        `select current_setting('idle_in_transaction_session_timeout') as idle,
                current_setting('statement_timeout') as statement, pg_backend_pid() as pid`,
      );
      expect({ idle: rows[0]!.idle, statement: rows[0]!.statement }).to.deep.equal({ idle: '30s', statement: '1min' });
      await session.query('begin');
      await session.query('select pg_current_xact_id()'); // holds an xid: the horizon waits for this transaction
      const began = Date.now();
      await waitFor(
        async () => {
          const found = await testDb().raw<{ rows: unknown[] }>('select 1 from pg_stat_activity where pid = ?', [
            rows[0]!.pid,
          ]);
          return found.rows.length === 0;
        },
        { what: 'the server to end the idle transaction', timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(Date.now() - began).to.be.within(29_000, 60_000);
      const refused = await session.query('select 1').catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(Error);
    } finally {
      await session.end().catch(() => undefined);
    }
  });
});
