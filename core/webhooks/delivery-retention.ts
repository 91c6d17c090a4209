/**
 * Retention of webhook deliveries: one bounded batch of final (`Succeeded` or `Failed`) deliveries older than the
 * retention period; their attempts go with them (`webhook_delivery_attempts.delivery_id` cascades). A `Pending`
 * delivery is never purged, however old. The rows are locked before they are deleted and rows another transaction
 * holds are skipped, so a delivery a manual retry is turning `Pending` right now is either skipped or seen `Pending`.
 */
import type { Db } from '../platform/db';
import { runPurgeStatement, type PurgeBatch } from '../events/retention';

/** Deletes up to `batchSize` old final deliveries with their attempts; returns how many deliveries went. */
export async function purgeFinalDeliveries(db: Db, batch: PurgeBatch): Promise<number> {
  return runPurgeStatement(
    db,
    `with doomed as (
       select d.id
         from webhook_deliveries d
         join organizations o on o.id = d.organization_id
        where d.created_at < now() - make_interval(days => :days)
          and d.status <> 'Pending'
          and o.mode = :mode
          and (cast(:organizationId as uuid) is null or d.organization_id = cast(:organizationId as uuid))
        order by d.created_at
        limit :limit
        for update of d skip locked
     ), gone as (
       delete from webhook_deliveries d using doomed where d.id = doomed.id and d.status <> 'Pending' returning 1
     )
     select count(*)::int as purged from gone`,
    batch,
  );
}
