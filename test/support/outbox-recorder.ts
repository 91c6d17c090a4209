/**
 * A test consumer of the outbox that records every event it takes in `outbox_test_consumptions`, in the batch's own
 * transaction, so a test can count how often each event was consumed. Used in-process and by the relay child process
 * (outbox-relay-process.ts) that the crash test kills.
 */
import type { OutboxConsumer } from '../../core/events/consumer';
import type { Db } from '../../core/platform/db';

export async function ensureConsumptionTable(db: Db): Promise<void> {
  await db.raw(`create table if not exists outbox_test_consumptions (
    consumer text not null, event_id text not null, consumed_at timestamptz not null default clock_timestamp())`);
}

export interface RecorderOptions {
  name: string;
  /** Called inside the batch's transaction after its rows are written and before the cursor moves. */
  midBatch?: (batchNumber: number) => Promise<void>;
  /** Called before anything is written; throwing fails the batch. */
  beforeBatch?: () => Promise<void> | void;
}

export function recordingConsumer(options: RecorderOptions): OutboxConsumer {
  let batches = 0;
  return {
    name: options.name,
    startAt: 'now',
    async consume(trx, events) {
      await options.beforeBatch?.();
      batches++;
      await trx('outbox_test_consumptions').insert(events.map((e) => ({ consumer: options.name, event_id: e.id })));
      await options.midBatch?.(batches);
    },
  };
}

/** How many times `consumer` took each of `eventIds` (0 for one it never took). */
export async function consumptionCounts(db: Db, consumer: string, eventIds: string[]): Promise<number[]> {
  const rows = await db('outbox_test_consumptions')
    .where({ consumer })
    .whereIn('event_id', eventIds)
    .select('event_id')
    .count<{ event_id: string; count: number }[]>('* as count')
    .groupBy('event_id');
  const byId = new Map(rows.map((r) => [r.event_id, Number(r.count)]));
  return eventIds.map((id) => byId.get(id) ?? 0);
}
