/**
 * Retention of the outbox: one bounded batch of old events that nothing needs any more. An event goes only when
 * - it is older than the retention period;
 * - every outbox consumer of its organisation's mode has taken it: its position is at or before the lowest cursor in
 *   `outbox_cursors` for that mode (and a mode with no cursor yet keeps everything);
 * - it has no delivery left. Deliveries are purged first, and only once final (webhooks/delivery-retention.ts), so an
 *   event whose delivery is `Pending` stays, and deleting an event never cascades to a delivery.
 * Rows another transaction holds are skipped (the next batch or pass takes them).
 */
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';

export interface PurgeBatch {
  mode: Mode;
  olderThanDays: number;
  batchSize: number;
  /** Narrows the batch to one organisation (a test's or an operator's one-off run). */
  organizationId?: string;
}

/**
 * Runs one bounded purge statement with the batch's named bindings (`:mode`, `:days`, `:limit`, `:organizationId`);
 * the statement selects the number of rows it deleted as `purged`.
 */
export async function runPurgeStatement(db: Db, sql: string, batch: PurgeBatch): Promise<number> {
  const { rows } = await db.raw<{ rows: { purged: number }[] }>(sql, {
    mode: batch.mode,
    days: batch.olderThanDays,
    limit: batch.batchSize,
    organizationId: batch.organizationId ?? null,
  });
  return rows[0]?.purged ?? 0;
}

/** Deletes up to `batchSize` events that every consumer has taken; returns how many went. */
export async function purgeTakenEvents(db: Db, batch: PurgeBatch): Promise<number> {
  return runPurgeStatement(
    db,
    `with horizon as (
       select txid, seq from outbox_cursors where mode = :mode order by txid, seq limit 1
     ), doomed as (
       select e.id
         from events e
         join organizations o on o.id = e.organization_id
         join horizon h on (e.txid, e.seq) <= (h.txid, h.seq)
        where e.created_at < now() - make_interval(days => :days)
          and o.mode = :mode
          and (cast(:organizationId as uuid) is null or e.organization_id = cast(:organizationId as uuid))
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
        order by e.created_at
        limit :limit
        for update of e skip locked
     ), gone as (
       delete from events e using doomed where e.id = doomed.id returning 1
     )
     select count(*)::int as purged from gone`,
    batch,
  );
}
