/**
 * Retry now: a delivery waiting between attempts (Pending, its next attempt scheduled) gets its next attempt at once,
 * and keeps the rest of its schedule. The API's side is a signal to the delivery's current run
 * (workflows/webhook-delivery.ts ends its wait on it); the row is checked and locked first, scoped to the
 * organisation, so another tenant's delivery is not found and a delivery in any other state is `invalid_state`.
 */
import type { Client } from '@temporalio/client';
import type { Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { DELIVERY_SIGNALS, workflowIds } from '../temporal/names';
import { toDeliveryView, type DeliveryRow, type DeliveryView } from './deliveries';

/** What the signal needs: the delivery's id and the generation of its run (each run has its own workflow id). */
export interface DeliveryRunRef {
  deliveryId: string;
  generation: number;
}

export interface DeliveryRetryNow {
  signal(run: DeliveryRunRef): Promise<void>;
}

export function createDeliveryRetryNow(deps: { client: Client }): DeliveryRetryNow {
  return {
    async signal({ deliveryId, generation }) {
      await deps.client.workflow
        .getHandle(workflowIds.webhookDelivery(deliveryId, generation))
        .signal(DELIVERY_SIGNALS.retryNow);
    },
  };
}

/** Whether `row` is waiting between attempts: what Retry now applies to. */
export function isWaitingToRetry(row: Pick<DeliveryView, 'status' | 'nextAttemptAt'>): boolean {
  return row.status === 'Pending' && row.nextAttemptAt !== null;
}

/** The organisation's delivery, locked in `trx`, if it is waiting to retry: its run is the one to signal. */
export async function lockDeliveryWaitingToRetry(
  trx: Trx,
  organizationId: string,
  id: string,
): Promise<DeliveryView & DeliveryRunRef> {
  if (!isUuid(id)) throw errors.notFound('delivery');
  const row = await trx<DeliveryRow>('webhook_deliveries')
    .where({ organization_id: organizationId, id })
    .forUpdate()
    .first();
  if (!row) throw errors.notFound('delivery');
  const view = toDeliveryView(row);
  if (!isWaitingToRetry(view)) {
    const state = row.status === 'Pending' ? 'has an attempt under way' : `is ${row.status}`;
    throw new ApiError('invalid_state', `Only a delivery waiting to retry can be retried now; this one ${state}.`);
  }
  return { ...view, deliveryId: row.id, generation: row.generation };
}
