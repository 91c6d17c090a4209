/** Outbox cursors in the shared test database, for suites that start the real workers. */
import type { Mode } from '../../core/platform/mode';
import { testDb } from './resources';

/**
 * Moves each consumer's cursor in `mode` to everything committed so far, as a new consumer with `startAt: 'now'`
 * starts. The shared test database holds the events of every earlier suite: a worker started on it would first
 * work through that backlog (thousands of workflow starts), which is not what a suite about its own requests tests.
 */
export async function consumersSkipBacklog(consumers: string[], mode: Mode): Promise<void> {
  for (const consumer of consumers) {
    await testDb().raw(
      `insert into outbox_cursors (consumer, mode, txid, seq)
       values (?, ?, pg_snapshot_xmin(pg_current_snapshot()), 0)
       on conflict (consumer, mode) do update set txid = excluded.txid, seq = 0
       where (outbox_cursors.txid, outbox_cursors.seq) < (excluded.txid, 0)`,
      [consumer, mode],
    );
  }
}
