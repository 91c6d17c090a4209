/**
 * Retention (docs/product-choices.md): what the platform keeps and for how long.
 * - Webhook deliveries, with their attempts: 90 days after they were made, once final (`Succeeded` or `Failed`).
 * - Events: 90 days after they were written, once every outbox consumer has taken them and their delivery is gone.
 * - Idempotency records: once expired (24 hours after they were saved).
 * One pass deletes each kind in bounded batches (one statement, one short transaction each), looping while a batch
 * comes back full, so a pass keeps up with any write rate the database can sustain; a time budget ends a long pass
 * early and the next scheduled pass goes on. Deliveries go before events, so their events can follow in the same pass.
 * - Placement files: 30 days after their placement finished (core/placements/file-retention.ts); the placement and its
 *   rows' problems stay. Deleted from the mode's DocumentStore when the pass is given one.
 * - Document objects no row names (a crash between storing and the row, a sandbox reset), past a grace period: swept
 *   from the mode's DocumentStore when the pass is given one.
 */
import type { Db } from '../platform/db';
import { sweepOrphanObjects } from '../documents/orphan-sweep';
import type { DocumentStore } from '../documents/store';
import type { Mode } from '../platform/mode';
import { deleteExpiredIdempotencyRecords } from '../platform/idempotency-store';
import { purgeExpiredPlacementFiles } from '../placements/file-retention';
import { purgeTakenEvents, type PurgeBatch } from '../events/retention';
import { purgeFinalDeliveries } from '../webhooks/delivery-retention';

export const RETENTION_DAYS = 90;
export const PURGE_BATCH_SIZE = 5_000;
/** Stop starting statements after this long; the schedule's next pass continues. */
export const PURGE_TIME_BUDGET_MS = 8 * 60_000;

export const PURGE_KINDS = ['webhook_deliveries', 'events', 'idempotency_records'] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

export interface KindReport {
  purged: number;
  /** DELETE statements run. */
  statements: number;
}

export interface PurgeReport {
  kinds: Record<PurgeKind, KindReport>;
  /** False when the time budget ended the pass with full batches still coming back. */
  complete: boolean;
  /** Placements whose file was deleted; present when the pass was given a `documents` store. */
  placementFiles?: number;
  /** Orphan document objects deleted; present when the pass was given a `documents` store. */
  orphanObjects?: number;
}

export interface PurgeOptions {
  db: Db;
  mode: Mode;
  olderThanDays?: number;
  batchSize?: number;
  timeBudgetMs?: number;
  /** Narrows the pass to one organisation (a test's or an operator's one-off run); all of the mode by default. */
  organizationId?: string;
  /** Called after every statement, so a long pass can heartbeat. */
  onProgress?: () => void;
  /**
   * The mode's document store: expired placement files are deleted from it after the rows, then its orphan objects
   * are swept (not on a pass narrowed to one tenant).
   */
  documents?: DocumentStore;
  /** Days a finished placement's file is kept; PLACEMENT_FILE_RETENTION_DAYS unless given. */
  placementFileDays?: number;
}

type BatchDelete = (db: Db, batch: PurgeBatch) => Promise<number>;

const BATCH_DELETES: Record<PurgeKind, BatchDelete> = {
  webhook_deliveries: purgeFinalDeliveries,
  events: purgeTakenEvents,
  idempotency_records: (db, batch) => deleteExpiredIdempotencyRecords(db, batch.batchSize, batch.organizationId),
};

export async function purgeExpiredRows(options: PurgeOptions): Promise<PurgeReport> {
  const batch: PurgeBatch = {
    mode: options.mode,
    olderThanDays: options.olderThanDays ?? RETENTION_DAYS,
    batchSize: options.batchSize ?? PURGE_BATCH_SIZE,
    organizationId: options.organizationId,
  };
  const deadline = Date.now() + (options.timeBudgetMs ?? PURGE_TIME_BUDGET_MS);
  const report: PurgeReport = { kinds: emptyKinds(), complete: true };
  for (const kind of PURGE_KINDS) {
    const kindReport = report.kinds[kind];
    for (;;) {
      const purged = await BATCH_DELETES[kind](options.db, batch);
      kindReport.purged += purged;
      kindReport.statements += 1;
      options.onProgress?.();
      if (purged < batch.batchSize) break;
      if (Date.now() >= deadline) return { ...report, complete: false };
    }
  }
  if (options.documents) {
    report.placementFiles = await purgeExpiredPlacementFiles({
      db: options.db,
      store: options.documents,
      mode: options.mode,
      batchSize: batch.batchSize,
      deadline,
      ...(options.placementFileDays !== undefined ? { olderThanDays: options.placementFileDays } : {}),
      ...(options.organizationId ? { organizationId: options.organizationId } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    if (Date.now() >= deadline) return { ...report, complete: false };
  }
  if (options.documents && !options.organizationId) {
    report.orphanObjects = await sweepOrphanObjects({ db: options.db, store: options.documents });
  }
  return report;
}

function emptyKinds(): Record<PurgeKind, KindReport> {
  return Object.fromEntries(PURGE_KINDS.map((kind) => [kind, { purged: 0, statements: 0 }])) as Record<
    PurgeKind,
    KindReport
  >;
}
