/**
 * The database side of webhook dispatch (DECISIONS §4): deliveries, one per event, for an organisation whose webhook
 * configuration is enabled at that moment, snapshotting its URL and sealed secret. The outbox consumer
 * (delivery-consumer.ts) writes them in the transaction that moves its cursor; starting their workflows happens after
 * commit, and `workflow_started_at` records it, so deliveries whose start was lost are found again.
 */
import type { Mode } from '../platform/config';
import type { OutboxEvent } from '../events/consumer';
import type { Db, Trx } from '../platform/db';
import { ApiError } from '../platform/errors';
import { recordEvent } from '../events/outbox';
import { newId } from '../platform/ids';
import type { WebhookConfigRow } from './receiver-config';

/** What the relay needs to start a delivery's workflow: ids only, never the URL, the secret or the payload. */
export interface DeliveryRef {
  deliveryId: string;
  organizationId: string;
  eventType: string;
  generation: number;
}

type EventRef = Pick<OutboxEvent, 'id' | 'organizationId' | 'type'>;

/** An enabled configuration: the table's check constraint guarantees that its URL and sealed secret are set. */
type EnabledConfig = Pick<WebhookConfigRow, 'organization_id' | 'secret_key_id'> & {
  [K in 'url' | 'secret_iv' | 'secret_tag' | 'secret_ciphertext']: NonNullable<WebhookConfigRow[K]>;
};

async function enabledConfigs(trx: Db, organizationIds: string[]): Promise<Map<string, EnabledConfig>> {
  if (organizationIds.length === 0) return new Map();
  // FOR SHARE: a concurrent clear waits for this dispatch, so no delivery is snapshotted from a cleared config.
  const rows = await trx<WebhookConfigRow>('webhook_configs')
    .whereIn('organization_id', organizationIds)
    .andWhere({ enabled: true })
    .forShare()
    .select<EnabledConfig[]>('organization_id', 'url', 'secret_key_id', 'secret_iv', 'secret_tag', 'secret_ciphertext');
  return new Map(rows.map((row) => [row.organization_id, row]));
}

/** Inserts the deliveries of `events` whose organisation has an enabled receiver; returns the ones that are new. */
export async function insertDeliveries(trx: Db, events: EventRef[]): Promise<DeliveryRef[]> {
  const configs = await enabledConfigs(trx, [...new Set(events.map((e) => e.organizationId))]);
  const rows = events.flatMap((event) => {
    const config = configs.get(event.organizationId);
    if (!config) return []; // no enabled receiver: nothing is enqueued for this event
    return [
      {
        id: newId(),
        organization_id: event.organizationId,
        event_id: event.id,
        event_type: event.type,
        url: config.url,
        secret_key_id: config.secret_key_id,
        secret_iv: config.secret_iv,
        secret_tag: config.secret_tag,
        secret_ciphertext: config.secret_ciphertext,
      },
    ];
  });
  if (rows.length === 0) return [];
  // The unique event_id makes dispatching an event twice a no-op rather than a second delivery.
  const inserted: { id: string; organization_id: string; event_type: string; generation: number }[] = await trx(
    'webhook_deliveries',
  )
    .insert(rows)
    .onConflict('event_id')
    .ignore()
    .returning(['id', 'organization_id', 'event_type', 'generation']);
  return inserted.map((row): DeliveryRef => ({
    deliveryId: row.id,
    organizationId: row.organization_id,
    eventType: row.event_type,
    generation: row.generation,
  }));
}

/** Pending deliveries of this mode whose workflow the relay has not (yet) started, oldest first. */
export async function listUnstartedDeliveries(db: Db, mode: Mode, limit = 500): Promise<DeliveryRef[]> {
  const rows: { id: string; organization_id: string; event_type: string; generation: number }[] = await db(
    'webhook_deliveries as d',
  )
    .join('organizations as o', 'o.id', 'd.organization_id')
    .where({ 'd.status': 'Pending', 'o.mode': mode })
    .whereNull('d.workflow_started_at')
    .orderBy('d.created_at')
    .limit(limit)
    .select('d.id', 'd.organization_id', 'd.event_type', 'd.generation');
  return rows.map((row) => ({
    deliveryId: row.id,
    organizationId: row.organization_id,
    eventType: row.event_type,
    generation: row.generation,
  }));
}

/** Marks runs as started; a delivery retried meanwhile (a newer generation) stays unstarted. */
export async function markWorkflowsStarted(db: Db, refs: DeliveryRef[]): Promise<void> {
  if (refs.length === 0) return;
  await db.raw(
    `update webhook_deliveries d set workflow_started_at = now()
       from unnest(?::uuid[], ?::int[]) as s(id, generation)
      where d.id = s.id and d.generation = s.generation and d.workflow_started_at is null`,
    [refs.map((r) => r.deliveryId), refs.map((r) => r.generation)],
  );
}

/**
 * `POST /v1/webhooks/test`: a `test.ping` event and its delivery, made in the caller's transaction, so the answer can
 * name both. The delivery consumer, woken by the events trigger, finds the delivery already made and starts its workflow.
 */
export async function createTestPing(
  trx: Trx,
  organizationId: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const configs = await enabledConfigs(trx, [organizationId]);
  if (!configs.has(organizationId)) throw new ApiError('no_webhook_configured');
  const event = await recordEvent(trx, organizationId, 'test.ping', {});
  const [delivery] = await insertDeliveries(trx, [{ id: event.id, organizationId, type: event.type }]);
  return { eventId: event.id, deliveryId: delivery!.deliveryId };
}
