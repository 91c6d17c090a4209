/**
 * The last resort of a delivery run whose attempt could not run at all (its activity failed for good: an input that
 * can never succeed, or infrastructure down longer than the activity's retry policy lasts). The delivery is marked
 * `Failed` rather than left `Pending` with no run behind it, so the log says so and a manual retry can deliver it.
 */
import type { Db } from '../platform/db';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDeliveryId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Pending → Failed for this generation only, answering the delivery's request id (for its log line); undefined when
 * there was nothing to move (stale, final or gone).
 */
export async function failUnfinishedDelivery(
  db: Db,
  deliveryId: string,
  generation: number,
): Promise<{ requestId: string | null } | undefined> {
  if (!isDeliveryId(deliveryId) || !Number.isSafeInteger(generation)) return undefined;
  const [moved] = await db('webhook_deliveries')
    .where({ id: deliveryId, generation, status: 'Pending' })
    .update({ status: 'Failed', next_attempt_at: null, updated_at: db.fn.now(3) })
    .returning<{ request_id: string | null }[]>('request_id');
  return moved && { requestId: moved.request_id };
}
