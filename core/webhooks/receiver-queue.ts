/**
 * A receiver's queue as every webhooks worker process sees it: the organisation's deliveries waiting for an attempt,
 * read from PostgreSQL, not from one process's memory. A process that counted its own busy answers counted the
 * waiters another process had since served (it cannot know), and with two processes those waits fed each other up to
 * their cap: a 10,000-debt burst's last deliveries slept 10 minutes while their receiver was idle
 * (docs/operators/performance.md).
 *
 * A delivery waits for an attempt from when its run started (first attempt) or its retry fell due; the deliveries
 * ahead of it are those of its organisation waiting since earlier: first attempts of runs started before (at most the
 * starter's bound per organisation, core/webhooks/delivery-consumer.ts) and retries due before. Both are short ranges of
 * partial indexes. Attempts in flight are among them until they are recorded, as they should be: a slot frees only
 * when one of them ends. A delivery that is not bulk work counts only the others that are not (a placement's are bulk,
 * core/events/bulk-work.ts): the organisation's own API debt is not queued at its receiver behind its placement's.
 */
import type { Db } from '../platform/db';
import { queryNamed } from '../platform/prepared';

/** Counted no further: at any receiver's pace, more than this many ahead waits the longest busy wait anyway. */
const AHEAD_COUNT_LIMIT = 10_000;

const ATTEMPTS_AHEAD = `
  with waiting as (
    select coalesce(case when d.attempt_count = 0 then d.workflow_started_at else d.next_attempt_at end,
                    current_timestamp(3)) as since, d.bulk
      from webhook_deliveries d
     where d.id = $1 and d.organization_id = $2
  )
  select (select count(*) from (
            select 1 from webhook_deliveries f
             where f.organization_id = $2
               and f.status = 'Pending' and f.attempt_count = 0
               and (f.workflow_started_at is not null or f.start_claimed_until is not null)
               and f.workflow_started_at < (select since from waiting)
               and (not f.bulk or (select bulk from waiting))
             limit $3) first_attempts)
       + (select count(*) from (
            select 1 from webhook_deliveries r
             where r.organization_id = $2
               and r.status = 'Pending' and r.attempt_count > 0
               and r.next_attempt_at < (select since from waiting)
               and (not r.bulk or (select bulk from waiting))
             limit $3) retries) as ahead`;

/** How many of the organisation's deliveries wait for an attempt ahead of this one (0 if it is gone). */
export async function attemptsAhead(db: Db, organizationId: string, deliveryId: string): Promise<number> {
  const [row] = await queryNamed<{ ahead: string }>(db, ATTEMPTS_AHEAD, [
    deliveryId,
    organizationId,
    AHEAD_COUNT_LIMIT,
  ]);
  return Number(row?.ahead ?? 0);
}
