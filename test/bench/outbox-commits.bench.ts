/**
 * Commit throughput of event-writing transactions, with and without a NOTIFY trigger on the events table (hardening
 * item 17): 20 clients each commit transactions that record one event, for the scenario's duration, first with the
 * per-statement NOTIFY trigger the outbox used to have, then as it is now (no trigger, relays poll). Prints both and
 * the ratio. The trigger is created under a bench-only name and dropped afterwards.
 */
import { recordEvent } from '../../core/events/outbox';
import { createDb, type Db } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { benchTenant } from './support';

const CLIENTS = 20;

async function commitsPerSecond(db: Db, organizationId: string, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let commits = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < deadline) {
        await db.transaction((trx) => recordEvent(trx, organizationId, 'test.ping', {}));
        commits++;
      }
    }),
  );
  return commits / seconds;
}

export async function benchOutboxCommits(seconds: number): Promise<void> {
  const db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: CLIENTS } });
  const { organizationId } = await benchTenant(db, 'bench-outbox-commits');
  try {
    await db.raw(`create or replace function bench_notify_outbox() returns trigger language plpgsql as $$
      begin perform pg_notify('bench_outbox', ''); return null; end $$`);
    await db.raw(`create trigger bench_notify_outbox after insert on events
      for each statement execute function bench_notify_outbox()`);
    let withTrigger: number;
    try {
      withTrigger = await commitsPerSecond(db, organizationId, seconds);
    } finally {
      await db.raw('drop trigger if exists bench_notify_outbox on events');
      await db.raw('drop function if exists bench_notify_outbox()');
    }
    const withoutTrigger = await commitsPerSecond(db, organizationId, seconds);
    console.log(`\noutbox commits (${CLIENTS} clients, one event per transaction, ${seconds}s each):`);
    console.log(`  with a NOTIFY trigger (before): ${withTrigger.toFixed(0)} commits/s`);
    console.log(`  polled outbox (now):            ${withoutTrigger.toFixed(0)} commits/s`);
    console.log(`  ratio now/before:               ${(withoutTrigger / withTrigger).toFixed(2)}`);
  } finally {
    // Its thousands of events (the organisation's delete cascades to them) would otherwise be the next relay's
    // backlog: the webhooks scenario that follows starts one on this database.
    await db('organizations').where({ id: organizationId }).delete();
    await db.destroy();
  }
}
