/**
 * What a sandbox reset removes (DECISIONS.md §6): the tenant's debts, debtors, transactions, lifecycle inputs, events,
 * webhook deliveries (with their attempts), idempotency records and placements (with their rows' problems). It keeps
 * the organisation, its branding, its API keys and its webhook configuration. Documents' rows go too; their stored
 * objects are the store's (`DocumentStore.deleteNamespace`), and any the reset leaves are orphans the retention sweep
 * deletes. Placements' files are named by the rows the wipe deletes (`WipedFiles`): the reset deletes them once those
 * rows are gone; one a crash leaves behind is an orphan the same sweep deletes.
 */
import type { Knex } from 'knex';
import type { Db, Trx } from '../platform/db';

/** Children before parents, so no foreign key is violated whatever the cascades say. */
const WIPED_TABLES = [
  'webhook_deliveries', // attempts go with them (on delete cascade)
  'events',
  'idempotency_keys',
  'lifecycle_inputs',
  'lifecycle_pending_starts',
  'transactions',
  'documents',
  'placement_row_problems', // before their placements, which a running import may still be reading
  'placements',
  'debts',
  'debtors',
] as const;

export type WipedTable = (typeof WIPED_TABLES)[number];

/** The report of a wipe that removed nothing (a retried reset that found its wipe done). */
export function emptyWipe(): Record<WipedTable, number> {
  return Object.fromEntries(WIPED_TABLES.map((table) => [table, 0])) as Record<WipedTable, number>;
}

/** The stored files of the placements a wipe deleted: their keys gather here, to delete once the rows are gone. */
export type WipedFiles = string[];

/** Deletes `where`'s rows of `table`; a placement's file key is kept in `files`. */
async function deleteRows(
  db: Db | Trx,
  table: WipedTable,
  where: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
  files: WipedFiles,
): Promise<number> {
  if (table !== 'placements') return where(db(table)).del();
  const deleted = await where(db(table)).del<{ storage_key: string }[]>(['storage_key']);
  files.push(...deleted.map((row) => row.storage_key));
  return deleted.length;
}

/**
 * Deletes the tenant's data in the caller's transaction; returns the rows removed per table. The deleted placements'
 * file keys are added to `files` (delete those objects only once the transaction has committed).
 */
export async function wipeTenantData(
  trx: Trx,
  organizationId: string,
  files: WipedFiles = [],
): Promise<Record<WipedTable, number>> {
  const removed = {} as Record<WipedTable, number>;
  for (const table of WIPED_TABLES) {
    removed[table] = await deleteRows(trx, table, (q) => q.where({ organization_id: organizationId }), files);
  }
  return removed;
}

/** Rows deleted per statement by the batched wipe: each commits on its own, holding no long transaction. */
export const WIPE_BATCH = 5_000;

/**
 * Deletes the tenant's data a batch at a time, each batch its own short transaction, so a large tenant's wipe never
 * holds the outbox horizon or a long lock; `afterBatch` runs after each (an activity's heartbeat).
 * Not atomic, and need not be: the reset's final transaction wipes whatever is left (what the tenant wrote meanwhile)
 * with the new seed, and an interrupted wipe is simply continued by the retry. Each batch commits on its own, so the
 * placement file keys added to `files` may be deleted from the store as soon as this returns.
 */
export async function wipeTenantDataInBatches(
  db: Db,
  organizationId: string,
  afterBatch: () => void = () => undefined,
  files: WipedFiles = [],
): Promise<Record<WipedTable, number>> {
  const removed = emptyWipe();
  for (const table of WIPED_TABLES) {
    for (;;) {
      const batch = db(table).select('ctid').where({ organization_id: organizationId }).limit(WIPE_BATCH);
      const deleted = await deleteRows(db, table, (q) => q.whereIn('ctid', batch), files);
      removed[table] += deleted;
      afterBatch();
      if (deleted < WIPE_BATCH) break;
    }
  }
  return removed;
}

/**
 * Serialises resets of one tenant (a retried attempt and a straggling earlier one) until the caller's transaction
 * ends: the second waits, then wipes what the first seeded.
 */
export async function lockTenantForReset(trx: Trx, organizationId: string): Promise<void> {
  await trx.raw(`select pg_advisory_xact_lock(hashtextextended('sandbox-reset:' || ?, 0))`, [organizationId]);
}
