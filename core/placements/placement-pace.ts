/**
 * The pace of an organisation's placements (docs/placements.md "Fair to everyone else"): the organisation's
 * `placement_rows_per_second` (else the default) is its rate, not each placement's, so it is shared evenly by its
 * placements importing at that moment: with two running, each keeps half. The share is taken afresh after every
 * chunk, so a placement that finishes hands its share back at the others' next chunk. After a chunk the import waits
 * out what remains of that chunk's time at its share.
 */
import type { Db } from '../platform/db';

/** An organisation's rate when it has none of its own. */
export const DEFAULT_ROWS_PER_SECOND = 500;

export interface OrganizationPace {
  /** The organisation's rate, all its placements together. */
  rowsPerSecond: number;
  /** Its placements importing now (the asking one among them): at least 1. */
  importing: number;
}

export async function organizationPace(
  db: Db,
  organizationId: string,
  defaultRowsPerSecond = DEFAULT_ROWS_PER_SECOND,
): Promise<OrganizationPace> {
  const row = await db('organizations')
    .where({ id: organizationId })
    .first<{ rate: number | null; importing: string } | undefined>(
      db.raw('placement_rows_per_second as rate'),
      db.raw(
        `(select count(*) from placements p where p.organization_id = organizations.id and p.status = 'Importing')
           as importing`,
      ),
    );
  return { rowsPerSecond: row?.rate ?? defaultRowsPerSecond, importing: Math.max(1, Number(row?.importing ?? 0)) };
}

/** How long to wait after a chunk of `rows` that took `elapsedMs`, so the placement keeps its share of the pace. */
export function chunkPauseMs(rows: number, pace: OrganizationPace, elapsedMs: number): number {
  const shareMs = (rows * 1000 * pace.importing) / pace.rowsPerSecond;
  return Math.max(0, Math.round(shareMs - elapsedMs));
}
