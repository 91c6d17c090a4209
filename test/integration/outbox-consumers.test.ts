/**
 * The multi-consumer outbox against real PostgreSQL: each consumer has its own cursor, so one that fails does not
 * hold the others back, a committed event wakes the relay at once, and a relay killed with SIGKILL in the middle of a batch loses nothing and repeats nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { ensureCursor, readCursor } from '../../core/events/cursor';
import { recordEvent } from '../../core/events/outbox';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { createLogger } from '../../core/platform/logger';
import { testEnv } from '../support/env';
import { consumptionCounts, ensureConsumptionTable, recordingConsumer } from '../support/outbox-recorder';
import { killGroup, nodeCommand } from '../support/processes';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { raiseEvent } from '../support/webhooks';

const ROOT = join(__dirname, '..', '..');
const logger = createLogger({ level: 'silent', name: 'outbox-test' });

const uniqueName = (what: string) =>
  `test-${what}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

async function raiseEvents(count: number): Promise<string[]> {
  const tenant = await createTestTenant();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await raiseEvent(tenant.organization.id));
  return ids;
}

describe('multi-consumer outbox', function () {
  this.timeout(60_000);
  before(() => ensureConsumptionTable(testDb()));

  describe('two consumers, one failing', () => {
    let relay: OutboxRelay | undefined;
    afterEach(() => relay?.stop());

    it('the healthy consumer takes every event once while the failing one is stuck; once mended, it takes each once too', async () => {
      const healthy = uniqueName('healthy');
      const failing = uniqueName('failing');
      let broken = true;
      let failedBatches = 0;
      const consumers = [
        recordingConsumer({ name: healthy }),
        recordingConsumer({
          name: failing,
          beforeBatch: () => {
            if (!broken) return;
            failedBatches++;
            throw new Error('consumer is broken');
          },
        }),
      ];
      for (const consumer of consumers) await ensureCursor(testDb(), consumer, 'production');
      const failingStart = await readCursor(testDb(), failing, 'production');
      const eventIds = await raiseEvents(20);
      relay = startOutboxRelay({
        mode: 'production',
        db: testDb(),
        databaseUrl: testEnv.databaseUrl,
        consumers,
        logger,
        pollIntervalMs: 100,
      });

      await waitFor(async () => (await consumptionCounts(testDb(), healthy, eventIds)).every((n) => n === 1), {
        timeoutMs: 20_000,
        what: 'the healthy consumer to take all 20 events',
      });
      await waitFor(async () => failedBatches > 0, { timeoutMs: 20_000, what: 'the failing consumer to have failed' });
      expect(await consumptionCounts(testDb(), failing, eventIds)).to.deep.equal(eventIds.map(() => 0));
      expect(await readCursor(testDb(), failing, 'production')).to.deep.equal(failingStart);

      broken = false;
      await waitFor(async () => (await consumptionCounts(testDb(), failing, eventIds)).every((n) => n === 1), {
        timeoutMs: 30_000,
        what: 'the mended consumer to take all 20 events',
      });
      expect(await consumptionCounts(testDb(), healthy, eventIds)).to.deep.equal(eventIds.map(() => 1));
    });
  });

  describe('waking the relay on commit', () => {
    let relay: OutboxRelay | undefined;
    afterEach(() => relay?.stop());

    it('takes an event recorded in a savepoint as soon as the outer transaction commits, without waiting for a poll', async () => {
      const consumer = recordingConsumer({ name: uniqueName('woken') });
      await ensureCursor(testDb(), consumer, 'production');
      relay = startOutboxRelay({
        mode: 'production',
        db: testDb(),
        databaseUrl: testEnv.databaseUrl,
        consumers: [consumer],
        logger,
        pollIntervalMs: 3_600_000, // only a wake-up can make it look again
      });
      const tenant = await createTestTenant();
      // Woken at the savepoint's release, the relay would find nothing below its horizon and sleep for an hour.
      const eventId = await testDb().transaction(async (outer) => {
        const event = await outer.transaction((savepoint) =>
          recordEvent(savepoint, tenant.organization.id, 'test.ping', { ping: true }),
        );
        await outer.raw('select pg_sleep(0.2)');
        return event.id;
      });
      await waitFor(async () => (await consumptionCounts(testDb(), consumer.name, [eventId]))[0] === 1, {
        timeoutMs: 20_000,
        what: 'the relay woken by the commit to take the event',
      });
    });
  });

  describe('a relay process killed with SIGKILL in the middle of a batch', () => {
    let child: { child: ChildProcess } | undefined;
    afterEach(() => killGroup(child));

    function startRelayProcess(consumer: string, killAtBatch?: number) {
      const [command, args] = nodeCommand('test/support/outbox-relay-process.ts');
      const proc = spawn(command, args, {
        cwd: ROOT,
        detached: true,
        env: {
          ...process.env,
          DATABASE_URL: testEnv.databaseUrl,
          CONSUMER: consumer,
          BATCH_SIZE: '50',
          ...(killAtBatch ? { KILL_AT_BATCH: String(killAtBatch) } : {}),
        },
      });
      let output = '';
      const midBatch = new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes('mid-batch')) resolve();
        });
        proc.on('exit', (code, signal) => reject(new Error(`relay process exited (${signal ?? code}): ${output}`)));
      });
      midBatch.catch(() => undefined);
      child = { child: proc };
      return { proc, midBatch };
    }

    it('loses nothing and repeats nothing: the interrupted batch is taken again, whole, by the next process', async () => {
      const consumer = uniqueName('crash');
      await ensureCursor(testDb(), { name: consumer, startAt: 'now' }, 'production');
      const eventIds = await raiseEvents(200);

      const first = startRelayProcess(consumer, 2);
      await first.midBatch; // batch 1 committed; batch 2 has written its rows and not yet moved the cursor
      const exited = new Promise((resolve) => first.proc.once('exit', resolve));
      killGroup({ child: first.proc });
      await exited;
      const afterKill = await consumptionCounts(testDb(), consumer, eventIds);
      expect(afterKill.filter((n) => n === 1)).to.have.length(50, 'exactly the first batch survives the kill');
      expect(afterKill.filter((n) => n > 1)).to.have.length(0);

      startRelayProcess(consumer);
      await waitFor(async () => (await consumptionCounts(testDb(), consumer, eventIds)).every((n) => n >= 1), {
        timeoutMs: 30_000,
        what: 'the second relay process to take the rest',
      });
      expect(await consumptionCounts(testDb(), consumer, eventIds)).to.deep.equal(eventIds.map(() => 1));
    });
  });
});
