/**
 * Retention of placement files (docs/placements.md "How long files are kept"): the stored file of a placement that
 * finished more than PLACEMENT_FILE_RETENTION_DAYS ago is deleted by the retention purge's pass; the placement and its
 * rows' problems stay. A batch marks its placements `file_deleted_at` in one short transaction, then deletes the
 * objects no row still needs: keys are content addresses, so the same bytes uploaded again (another placement, a check
 * then imported, a document) keep the object until their own time comes. A crash between the two leaves objects no
 * row needs: the orphan sweep deletes them.
 */
import { deleteKeysNoRowNeeds } from '../documents/orphan-sweep';
import type { DocumentStore } from '../documents/store';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';

/** Days a finished placement's file is kept, to download its failed rows or import a check. */
export const PLACEMENT_FILE_RETENTION_DAYS = 30;

export interface PlacementFilePurge {
  db: Db;
  store: DocumentStore;
  mode: Mode;
  olderThanDays?: number;
  batchSize: number;
  /** Narrows the purge to one organisation (a test's or an operator's one-off run). */
  organizationId?: string;
  /** Stop starting batches at this instant (epoch ms); the next pass goes on. */
  deadline: number;
  onProgress?: () => void;
}

/** Marks up to `batchSize` expired placements' files deleted; the keys they named. */
async function markBatch(options: PlacementFilePurge): Promise<string[]> {
  const { rows } = await options.db.raw<{ rows: { storage_key: string }[] }>(
    `with doomed as (
       select p.id
         from placements p
         join organizations o on o.id = p.organization_id
        where p.file_deleted_at is null
          and p.completed_at is not null
          and p.completed_at < now() - make_interval(days => :days)
          and o.mode = :mode
          and (cast(:organizationId as uuid) is null or p.organization_id = cast(:organizationId as uuid))
        order by p.completed_at
        limit :limit
        for update of p skip locked
     )
     update placements p set file_deleted_at = now(), updated_at = now()
       from doomed where p.id = doomed.id
     returning p.storage_key`,
    {
      days: options.olderThanDays ?? PLACEMENT_FILE_RETENTION_DAYS,
      mode: options.mode,
      limit: options.batchSize,
      organizationId: options.organizationId ?? null,
    },
  );
  return rows.map((r) => r.storage_key);
}

/** Deletes the files of placements finished longer ago than the retention; returns how many placements lost theirs. */
export async function purgeExpiredPlacementFiles(options: PlacementFilePurge): Promise<number> {
  let purged = 0;
  for (;;) {
    const keys = await markBatch(options);
    purged += keys.length;
    await deleteKeysNoRowNeeds(options.db, options.store, [...new Set(keys)]);
    options.onProgress?.();
    if (keys.length < options.batchSize || Date.now() >= options.deadline) return purged;
  }
}
