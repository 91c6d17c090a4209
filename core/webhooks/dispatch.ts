/**
 * The database side of webhook dispatch (DECISIONS §4). A delivery is enqueued by `recordEvent` in the event's own
 * transaction, with a snapshot of the receiver's URL and sealed secret, and is owed its workflow until
 * `workflow_started_at` records the start: the webhooks worker's fair starter (delivery-consumer.ts) claims owed
 * deliveries organisation by organisation and starts them, so a start lost with a process is made again.
 */
import type { Mode } from '../platform/config';
import type { OutboxEvent } from '../events/consumer';
import type { Db, Trx } from '../platform/db';
import { ApiError } from '../platform/errors';
import { recordEvent } from '../events/outbox';
import { claimOwedStarts, roomUnderBound, shortenOwedClaims, type OwedStartTable } from '../temporal/owed-start-claims';

/** What the relay needs to start a delivery's workflow: ids only, never the URL, the secret or the payload. */
export interface DeliveryRef {
  deliveryId: string;
  organizationId: string;
  eventType: string;
  generation: number;
  /** The API request that caused the event (its `X-Request-Id`), or null: the run's `RequestId` search attribute. */
  requestId: string | null;
  /** Its event was bulk work (a placement's, core/events/bulk-work.ts): its run goes after others' (fairness.ts). */
  bulk?: boolean;
}

export type DeliveryRefRow = {
  id: string;
  organization_id: string;
  event_type: string;
  generation: number;
  request_id: string | null;
  bulk: boolean;
};

/** The columns a DeliveryRef is made of. */
export const DELIVERY_REF_COLUMNS = [
  'id',
  'organization_id',
  'event_type',
  'generation',
  'request_id',
  'bulk',
] as const;

/** A delivery's row (these columns, or more) as what starts its run. */
export function deliveryRefOf(row: DeliveryRefRow): DeliveryRef {
  return {
    deliveryId: row.id,
    organizationId: row.organization_id,
    eventType: row.event_type,
    generation: row.generation,
    requestId: row.request_id,
    bulk: row.bulk,
  };
}

/** The deliveries of these events whose workflow has not been started yet (recordEvent enqueued them). */
export async function unstartedDeliveriesOf(db: Db, events: Pick<OutboxEvent, 'id'>[]): Promise<DeliveryRef[]> {
  if (events.length === 0) return [];
  const rows = await db('webhook_deliveries')
    .whereIn(
      'event_id',
      events.map((e) => e.id),
    )
    .where({ status: 'Pending' })
    .whereNull('workflow_started_at')
    .select<DeliveryRefRow[]>(...DELIVERY_REF_COLUMNS);
  return rows.map(deliveryRefOf);
}

/**
 * A delivery is owed its workflow while it is Pending and no run of its generation has been started. It is in flight
 * from its claim until its first attempt: claimed (a live lease) or started in the last minute, Pending and not yet
 * tried (the partial index `webhook_deliveries_first_attempts_in_flight`). After a minute untried (a run lost, a
 * receiver that hangs with every slot of its taken) it stops counting, so it cannot hold its organisation's others.
 */
function deliveriesInFlight(alias: string): string {
  return `${alias}.status = 'Pending' and ${alias}.attempt_count = 0
     and (${alias}.workflow_started_at > now() - interval '1 minute' or ${alias}.start_claimed_until > now())`;
}

const OWED_DELIVERIES: OwedStartTable = {
  table: 'webhook_deliveries',
  key: 'id',
  owed: (t) => `${t}.status = 'Pending' and ${t}.workflow_started_at is null`,
  leaseColumn: 'start_claimed_until',
  columns: [...DELIVERY_REF_COLUMNS, 'created_at'],
  inFlight: deliveriesInFlight,
};

/**
 * Claims, for the lease, up to `perOrganization` of each organisation's next owed deliveries (not bulk first, then
 * oldest), and no more than keeps its deliveries between claim and first attempt within `inFlightPerOrganization`
 * (owed-start-claims.ts).
 */
export async function claimOwedDeliveries(
  db: Db,
  mode: Mode,
  perOrganization: number,
  skip: string[],
  leaseMs: number,
  inFlightPerOrganization: number,
): Promise<DeliveryRef[]> {
  const rows = await claimOwedStarts<DeliveryRefRow & { created_at: Date }>(
    db,
    OWED_DELIVERIES,
    mode,
    perOrganization,
    skip,
    leaseMs,
    inFlightPerOrganization,
  );
  return rows.map(deliveryRefOf);
}

/**
 * How many more of each organisation's deliveries admission lets in now: the bound less its deliveries in flight (0 at
 * or over it). For a start made outside the fair starter (the reconciler's), so that it does not let a burst's owed
 * deliveries into the Temporal server past the bound.
 */
export async function admissionRoom(
  db: Db,
  organizationIds: string[],
  inFlightPerOrganization: number,
): Promise<Map<string, number>> {
  const room = roomUnderBound(OWED_DELIVERIES.table, deliveriesInFlight, 'o.id');
  const { rows } = await db.raw<{ rows: { id: string; room: number }[] }>(
    `select o.id, (${room})::int as room from unnest(?::uuid[]) as o(id)`,
    [inFlightPerOrganization, inFlightPerOrganization, [...new Set(organizationIds)]],
  );
  return new Map(rows.map((r) => [r.id, r.room]));
}

/** Shortens claims not acted on to `afterMs` from now (fair-starter.ts). */
export async function releaseDeliveryClaims(db: Db, refs: DeliveryRef[], afterMs: number): Promise<void> {
  await shortenOwedClaims(
    db,
    OWED_DELIVERIES,
    refs.map((r) => r.deliveryId),
    afterMs,
  );
}

/** Marks runs as started; a delivery retried meanwhile (a newer generation) stays unstarted. */
export async function markWorkflowsStarted(db: Db, refs: DeliveryRef[]): Promise<void> {
  if (refs.length === 0) return;
  await db.raw(
    `update webhook_deliveries d set workflow_started_at = now(), start_claimed_until = null
       from unnest(?::uuid[], ?::int[]) as s(id, generation)
      where d.id = s.id and d.generation = s.generation and d.workflow_started_at is null`,
    [refs.map((r) => r.deliveryId), refs.map((r) => r.generation)],
  );
}

/**
 * `POST /v1/webhooks/test`: a `test.ping` event and its delivery, made in the caller's transaction, so the answer can
 * name both. The delivery consumer, woken by the events trigger, starts its workflow.
 */
export async function createTestPing(
  trx: Trx,
  organizationId: string,
): Promise<{ eventId: string; deliveryId: string }> {
  // FOR SHARE: a concurrent clear waits for this ping, so the ping is enqueued for the receiver we checked.
  const enabled = await trx('webhook_configs')
    .where({ organization_id: organizationId, enabled: true })
    .forShare()
    .first('organization_id');
  if (!enabled) throw new ApiError('no_webhook_configured');
  const event = await recordEvent(trx, organizationId, 'test.ping', {});
  if (!event.deliveryId) throw new Error('an enabled receiver got no delivery for its test ping');
  return { eventId: event.id, deliveryId: event.deliveryId };
}
