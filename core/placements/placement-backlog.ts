/**
 * Back-pressure on an import. Each debt a chunk raises starts a lifecycle workflow and a webhook delivery after the
 * chunk commits (the outbox consumers make those starts, oldest first). A chunk imported faster than its starts are
 * made only lengthens the queue every other tenant's starts wait in, so after a chunk the import also waits while
 * more than BACKLOG_LIMIT of its organisation's starts (a default chunk's worth) are still to be made: it goes as fast
 * as the platform absorbs it, never faster than its pace (placement-pace.ts).
 */
import type { Db } from '../platform/db';

/** Starts still to be made beyond which the import waits. */
export const BACKLOG_LIMIT = 500;
/** How long the import waits before its next chunk while its organisation's backlog is over the limit. */
export const BACKLOG_PAUSE_MS = 2_000;

/**
 * The organisation's starts still to be made, counted up to `limit + 1` (over the limit is all the answer needs):
 * debts whose lifecycle has not started, and deliveries whose workflow has not.
 */
export async function organizationBacklog(db: Db, organizationId: string, limit: number): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: string }[] }>(
    `select (select count(*) from (select 1 from lifecycle_pending_starts
                                    where organization_id = ? limit ?) s)
          + (select count(*) from (select 1 from webhook_deliveries
                                    where status = 'Pending' and workflow_started_at is null
                                      and organization_id = ? limit ?) d) as n`,
    [organizationId, limit + 1, organizationId, limit + 1],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The wait after a chunk, given the organisation's backlog (organizationBacklog counted up to BACKLOG_LIMIT). */
export function backlogPauseMs(backlog: number): number {
  return backlog > BACKLOG_LIMIT ? BACKLOG_PAUSE_MS : 0;
}
