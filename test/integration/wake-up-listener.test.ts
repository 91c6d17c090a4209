import net from 'node:net';
import { expect } from 'chai';
import type { Knex } from 'knex';
import pino from 'pino';
import { listenForWakeUps, wakeRelays, wakeRelaysOnCommit, type WakeUpListener } from '../../core/events/wake-up';
import { createDb, isPoolOpen } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { waitFor } from '../support/wait';

/** A LISTEN connection of its own that counts the wake-ups it receives (the first comes right after LISTEN). */
function countingListener(): { listener: WakeUpListener; wakes: () => number } {
  let wakes = 0;
  const listener = listenForWakeUps(
    testEnv.databaseUrl,
    () => wakes++,
    pino({ level: 'silent' }),
    () => false,
  );
  return { listener, wakes: () => wakes };
}

describe('relay wake-up listener (LISTEN connection)', function () {
  this.timeout(30_000);
  const databasePort = Number(new URL(testEnv.databaseUrl).port || 5432);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with .call(this) and restored
  const originalSetKeepAlive = net.Socket.prototype.setKeepAlive;
  /** Keepalive settings applied to sockets connected to the database while the test runs. */
  const keepAlives: { enabled: boolean; initialDelay: number }[] = [];
  let listener: WakeUpListener | undefined;

  before(() => {
    // Node 24 also accepts an options object; pg calls the (enable, initialDelay) form, the one recorded here.
    net.Socket.prototype.setKeepAlive = function (this: net.Socket, ...args: unknown[]) {
      const [enable, initialDelay] = args;
      if (this.remotePort === databasePort && typeof enable !== 'object')
        keepAlives.push({
          enabled: enable === true,
          initialDelay: typeof initialDelay === 'number' ? initialDelay : 0,
        });
      return Reflect.apply(originalSetKeepAlive, this, args) as net.Socket;
    };
  });
  after(async () => {
    net.Socket.prototype.setKeepAlive = originalSetKeepAlive;
    await listener?.close();
  });

  it('listens with TCP keepalive, and reconnects (keepalive again) after its connection is killed', async () => {
    const counted = countingListener();
    listener = counted.listener;
    const wakes = counted.wakes;
    await waitFor(() => wakes() >= 1, { what: 'the first wake after LISTEN' });
    expect(keepAlives).to.deep.equal([{ enabled: true, initialDelay: 30_000 }]);

    await testDb().raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'outbox-relay' and datname = current_database()`,
    );
    await waitFor(() => keepAlives.length === 2, { what: 'a new LISTEN connection' });
    expect(keepAlives[1]).to.deep.equal({ enabled: true, initialDelay: 30_000 });
    await waitFor(() => wakes() >= 2, { what: 'the wake after reconnecting' });
    const before = wakes();
    await wakeRelays(testDb());
    await waitFor(() => wakes() > before, { what: 'a NOTIFY on the new connection' });
  });
});

describe('relay wake-ups after commit', function () {
  this.timeout(30_000);
  let listener: WakeUpListener | undefined;
  afterEach(async () => listener?.close());

  it('asks no connection of a pool destroyed after the commit (knex would print a connection error)', async () => {
    const counted = countingListener();
    listener = counted.listener;
    const wakes = counted.wakes;
    await waitFor(() => wakes() >= 1, { what: 'the first wake after LISTEN' });
    const closing = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 1 } });
    const client = closing.client as Knex.Client;
    const acquire = client.acquireConnection.bind(client);
    /** Whether the pool was open at each connection asked of it. */
    const asked: boolean[] = [];
    client.acquireConnection = () => {
      asked.push(isPoolOpen(closing));
      return acquire() as unknown;
    };

    await closing.transaction(async (trx) => {
      await trx.raw('select 1');
      wakeRelaysOnCommit(trx);
    });
    const destroyed = closing.destroy();
    expect(isPoolOpen(closing)).to.equal(false);
    // An open pool's wake, scheduled after the closing pool's: once it arrives, the other's timer has fired too.
    const before = wakes();
    await testDb().transaction(async (trx) => {
      await trx.raw('select 1');
      wakeRelaysOnCommit(trx);
    });
    await waitFor(() => wakes() > before, { what: 'the open pool’s wake-up' });
    await destroyed;
    expect(asked).to.deep.equal([true]); // the transaction's own connection, and nothing once closing
    expect(isPoolOpen(testDb())).to.equal(true);
  });
});
