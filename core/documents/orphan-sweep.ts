/**
 * The retention sweep of stored documents' objects that no row names: what a crash between storing an upload's object
 * and writing its row leaves (document-upload.ts), and the store's spool files a crash mid-upload leaves. Placement
 * files are kept in the same store, so a `placements` row naming a key keeps it too, until its file's retention ends.
 */
import type { Db } from '../platform/db';
import type { DocumentDeps } from './documents';

/**
 * The keys of `keys` that a row still needs: a document's, or a placement's whose file is kept (not yet deleted by
 * its retention). Keys are content addresses (`<organisation>/<sha256>`), so one object may serve several rows: it
 * goes only once none needs it.
 */
export async function keysNamedByRows(db: Db, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .select('storage_key')
    .from('documents')
    .whereIn('storage_key', keys)
    .union(
      (q) => void q.select('storage_key').from('placements').whereIn('storage_key', keys).whereNull('file_deleted_at'),
    );
  return new Set(rows.map((r: { storage_key: string }) => r.storage_key));
}

/**
 * Deletes from the store each of `keys` that no row still needs (keysNamedByRows), calling `afterEach` after each
 * deletion; returns how many it deleted.
 */
export async function deleteKeysNoRowNeeds(
  db: Db,
  store: Pick<DocumentDeps['store'], 'delete'>,
  keys: string[],
  afterEach?: () => void,
): Promise<number> {
  const named = await keysNamedByRows(db, keys);
  let deleted = 0;
  for (const key of keys) {
    if (named.has(key)) continue;
    await store.delete(key);
    deleted += 1;
    afterEach?.();
  }
  return deleted;
}

/** An object younger than this may be an upload whose row is about to be written: the sweep leaves it. */
export const ORPHAN_GRACE_MS = 60 * 60_000;

/**
 * Deletes stored objects that no document row names and that are older than the grace period (what a crash between
 * storing an object and writing its row leaves), and the store's spool files as old (what a crash mid-upload leaves).
 * Returns the number deleted.
 */
export async function sweepOrphanObjects(
  deps: Pick<DocumentDeps, 'db' | 'store'>,
  options: { graceMs?: number; now?: Date } = {},
): Promise<number> {
  const cutoff = (options.now ?? new Date()).getTime() - (options.graceMs ?? ORPHAN_GRACE_MS);
  let deleted = 0;
  let batch: string[] = [];
  const flush = async () => {
    // Placement files (core/placements) share the store: a key named by either table is no orphan.
    deleted += await deleteKeysNoRowNeeds(deps.db, deps.store, batch);
    batch = [];
  };
  for await (const object of deps.store.listObjects()) {
    if (object.lastModified.getTime() > cutoff) continue;
    batch.push(object.key);
    if (batch.length >= 500) await flush();
  }
  if (batch.length > 0) await flush();
  // And what a crash mid-upload left in the store's spool: a body received but never stored.
  return deleted + (await deps.store.sweepSpool(new Date(cutoff)));
}
