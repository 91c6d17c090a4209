/**
 * Per-consumer outbox cursors (migration 20261123080000): the SQL behind the relay. A consumer's batch is the events
 * after its cursor and below the horizon — transaction ids lower than every transaction still running — so an event
 * whose transaction commits late is never skipped: it stays above the horizon until it is visible.
 */
import type { Db, Trx } from '../platform/db';
import type { Mode } from '../platform/mode';
import type { OutboxConsumer, OutboxEvent } from './consumer';

export interface CursorPosition {
  txid: string;
  seq: number;
}

/** Creates the consumer's cursor in `mode` unless it exists: at the very start, or after everything committed so far. */
export async function ensureCursor(db: Db, consumer: Pick<OutboxConsumer, 'name' | 'startAt'>, mode: Mode) {
  const position =
    consumer.startAt === 'now'
      ? `pg_snapshot_xmin(pg_current_snapshot()), 0` // below the horizon means committed (or aborted) already
      : `'0'::xid8, 0`;
  await db.raw(
    `insert into outbox_cursors (consumer, mode, txid, seq) values (?, ?, ${position}) on conflict do nothing`,
    [consumer.name, mode],
  );
}

/**
 * Locks the consumer's cursor for this transaction and reads up to `limit` events after it. Undefined when another
 * relay holds the cursor (SKIP LOCKED: that relay is taking the same events, so this one has nothing to do).
 */
export async function claimBatch(
  trx: Trx,
  consumer: string,
  mode: Mode,
  limit: number,
): Promise<{ cursor: CursorPosition; events: OutboxEvent[] } | undefined> {
  const cursor = await trx('outbox_cursors')
    .where({ consumer, mode })
    .forUpdate()
    .skipLocked()
    .first<{ txid: string; seq: number } | undefined>(trx.raw('txid::text as txid'), 'seq');
  if (!cursor) return undefined;
  const { rows } = await trx.raw<{ rows: OutboxEvent[] }>(
    `select e.id, e.organization_id as "organizationId", e.type, e.txid::text as txid, e.seq
       from events e join organizations o on o.id = e.organization_id
      where o.mode = ?
        and (e.txid, e.seq) > (?::xid8, ?::bigint)
        and e.txid < pg_snapshot_xmin(pg_current_snapshot())
      order by e.txid, e.seq
      limit ?`,
    [mode, cursor.txid, cursor.seq, limit],
  );
  return { cursor, events: rows };
}

export async function advanceCursor(trx: Trx, consumer: string, mode: Mode, to: CursorPosition): Promise<void> {
  await trx.raw(
    `update outbox_cursors set txid = ?::xid8, seq = ?, updated_at = now() where consumer = ? and mode = ?`,
    [to.txid, to.seq, consumer, mode],
  );
}

/** The consumer's cursor, for tests and operators. */
export async function readCursor(db: Db, consumer: string, mode: Mode): Promise<CursorPosition | undefined> {
  return db('outbox_cursors')
    .where({ consumer, mode })
    .first<CursorPosition | undefined>(db.raw('txid::text as txid'), 'seq');
}
