/**
 * The relay's database side (DECISIONS §4): turns outbox events into deliveries, one per event, for an organisation
 * whose webhook configuration is enabled at that moment, snapshotting its URL and sealed secret; the event is marked
 * dispatched in the same transaction, with or without a delivery. Starting the delivery workflows happens after commit
 * (workers/webhook-relay.ts); `workflow_started_at` records it, so deliveries whose start was lost are found again.
 */
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { ApiError } from '../platform/errors';
import { recordEvent } from '../events/outbox';
import { newId } from '../platform/ids';
import type { WebhookConfigRow } from './receiver-config';

/** NOTIFY channel raised by the events trigger (migration 20261122090200) and by delivery retries. */
export const OUTBOX_CHANNEL = 'webhook_outbox';

/** What the relay needs to start a delivery's workflow: ids only, never the URL, the secret or the payload. */
export interface DeliveryRef {
  deliveryId: string;
  organizationId: string;
  eventType: string;
  generation: number;
}

interface OutboxEvent {
  id: string;
  organization_id: string;
  type: string;
}

type EnabledConfig = Pick<
  WebhookConfigRow,
  'organization_id' | 'url' | 'secret_iv' | 'secret_tag' | 'secret_ciphertext'
>;

async function enabledConfigs(trx: Db, organizationIds: string[]): Promise<Map<string, EnabledConfig>> {
  if (organizationIds.length === 0) return new Map();
  // FOR SHARE: a concurrent clear waits for this dispatch, so no delivery is snapshotted from a cleared config.
  const rows = await trx<WebhookConfigRow>('webhook_configs')
    .whereIn('organization_id', organizationIds)
    .andWhere({ enabled: true })
    .forShare()
    .select('organization_id', 'url', 'secret_iv', 'secret_tag', 'secret_ciphertext');
  return new Map(rows.map((row) => [row.organization_id, row]));
}

async function insertDeliveries(trx: Db, events: OutboxEvent[], configs: Map<string, EnabledConfig>) {
  const rows = events.flatMap((event) => {
    const config = configs.get(event.organization_id);
    if (!config) return []; // no enabled receiver: nothing is enqueued for this event
    return [
      {
        id: newId(),
        organization_id: event.organization_id,
        event_id: event.id,
        event_type: event.type,
        url: config.url,
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

/**
 * Claims up to `limit` undispatched events of this mode's organisations (SKIP LOCKED, so relays never block each
 * other), creates their deliveries and marks them dispatched. Returns the deliveries to start.
 */
export async function dispatchEvents(
  db: Db,
  mode: Mode,
  limit = 500,
): Promise<{ events: number; deliveries: DeliveryRef[] }> {
  return db.transaction(async (trx) => {
    const events: OutboxEvent[] = await trx('events as e')
      .join('organizations as o', 'o.id', 'e.organization_id')
      .whereNull('e.dispatched_at')
      .andWhere('o.mode', mode)
      .orderBy([{ column: 'e.created_at' }, { column: 'e.id' }])
      .limit(limit)
      .forUpdate('e')
      .skipLocked()
      .select('e.id', 'e.organization_id', 'e.type');
    if (events.length === 0) return { events: 0, deliveries: [] };
    const configs = await enabledConfigs(trx, [...new Set(events.map((e) => e.organization_id))]);
    const deliveries = await insertDeliveries(trx, events, configs);
    await trx('events')
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .update({ dispatched_at: trx.fn.now(3) });
    return { events: events.length, deliveries };
  });
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
 * name both. The event is born dispatched; the events trigger wakes the relay, which starts the workflow.
 */
export async function createTestPing(
  trx: Db,
  organizationId: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const configs = await enabledConfigs(trx, [organizationId]);
  if (!configs.has(organizationId)) throw new ApiError('no_webhook_configured');
  const event = await recordEvent(trx, organizationId, 'test.ping', {});
  const [delivery] = await insertDeliveries(
    trx,
    [{ id: event.id, organization_id: organizationId, type: event.type }],
    configs,
  );
  await trx('events')
    .where({ id: event.id })
    .update({ dispatched_at: trx.fn.now(3) });
  return { eventId: event.id, deliveryId: delivery!.deliveryId };
}
