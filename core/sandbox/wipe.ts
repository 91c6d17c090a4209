/**
 * What a sandbox reset removes (DECISIONS.md §6): the tenant's debts, debtors, transactions, lifecycle inputs, events,
 * webhook deliveries (with their attempts) and idempotency records. It keeps the organisation, its branding, its API
 * keys and its webhook configuration. Documents' rows go too; their stored objects are the store's
 * (`DocumentStore.deleteNamespace`), and any the reset leaves are orphans the retention sweep deletes.
 */
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
  'debts',
  'debtors',
] as const;

export type WipedTable = (typeof WIPED_TABLES)[number];

/** The report of a wipe that removed nothing (a retried reset that found its wipe done). */
export function emptyWipe(): Record<WipedTable, number> {
  return Object.fromEntries(WIPED_TABLES.map((table) => [table, 0])) as Record<WipedTable, number>;
}

/** Deletes the tenant's data in the caller's transaction; returns the rows removed per table. */
export async function wipeTenantData(trx: Trx, organizationId: string): Promise<Record<WipedTable, number>> {
  const removed = {} as Record<WipedTable, number>;
  for (const table of WIPED_TABLES) removed[table] = await trx(table).where({ organization_id: organizationId }).del();
  return removed;
}

/** Rows deleted per statement by the batched wipe: each commits on its own, holding no long transaction. */
export const WIPE_BATCH = 5_000;

/**
 * Deletes the tenant's data a batch at a time, each batch its own short transaction, so a large tenant's wipe never
 * holds the outbox horizon or a long lock; `afterBatch` runs after each (an activity's heartbeat).
 * Not atomic, and need not be: the reset's final transaction wipes whatever is left (what the tenant wrote meanwhile)
 * with the new seed, and an interrupted wipe is simply continued by the retry.
 */
export async function wipeTenantDataInBatches(
  db: Db,
  organizationId: string,
  afterBatch: () => void = () => undefined,
): Promise<Record<WipedTable, number>> {
  const removed = emptyWipe();
  for (const table of WIPED_TABLES) {
    for (;;) {
      const deleted = await db(table)
        .whereIn('ctid', db(table).select('ctid').where({ organization_id: organizationId }).limit(WIPE_BATCH))
        .del();
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
