/**
 * The Deliveries and Events pages: the delivery log and the event log through the services GET
 * /v1/webhooks/deliveries and GET /v1/events use (the same keyset pages and cursors), a delivery with its attempts and
 * its event's payload, and the two retries: one `Failed` delivery (POST /v1/webhooks/deliveries/{id}/retry's service)
 * and every delivery failed since a date, capped per request. Reads take the organisation first; another
 * organisation's delivery is not found. Writes check the role first and are audited in their own transaction.
 */
import { EVENT_JSON, listEvents } from '../events/event-list';
import type { EventType } from '../events/outbox';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { jsonObject } from '../platform/json-page';
import type { PageRequest } from '../platform/pagination';
import { queryNamed } from '../platform/prepared';
import {
  ATTEMPT_JSON,
  DELIVERY_JSON_FIELDS,
  listDeliveries,
  retryDelivery,
  retryFailedDeliveries,
  RETRY_FAILED_CAP,
  type DeliveryDetail,
  type DeliveryFilter,
  type DeliveryView,
} from '../webhooks/deliveries';
import { lockDeliveryWaitingToRetry, type DeliveryRetryNow } from '../webhooks/delivery-retry-now';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requireWebhookManagement } from './roles';

export interface ConsolePage<T> {
  items: T[];
  nextCursor: string | null;
}

/** A listed event: the delivered envelope and the API request that caused it. */
export interface ConsoleEvent {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
  requestId: string | null;
}

export async function listConsoleDeliveries(
  db: Db,
  organizationId: string,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<ConsolePage<DeliveryView>> {
  const { data, nextCursor } = (await listDeliveries(db, organizationId, filter, page)).toJSON();
  return { items: data as DeliveryView[], nextCursor };
}

export async function listConsoleEvents(
  db: Db,
  organizationId: string,
  type: EventType | undefined,
  page: PageRequest,
): Promise<ConsolePage<ConsoleEvent>> {
  const { data, nextCursor } = (await listEvents(db, organizationId, type, page)).toJSON();
  return { items: data as ConsoleEvent[], nextCursor };
}

export interface ConsoleDelivery extends DeliveryDetail {
  /** The event delivered, as the receiver gets it (null if the event is gone). */
  event: ConsoleEvent | null;
}

/**
 * A delivery's page in one named statement, one round trip: the delivery, its attempts in order and its event (null
 * when gone), as one JSON text PostgreSQL writes — the same bytes JSON.stringify wrote for the delivery's
 * `DeliveryDetail` (GET /v1/webhooks/deliveries/{id}) with the event (GET /v1/events/{id}) beside it. Three statements
 * in turn, each through knex's builder, were a fifth of the page's CPU (test/bench/bare-console.ts copies the text).
 */
export const CONSOLE_DELIVERY_SQL = `select ${jsonObject([
  ...DELIVERY_JSON_FIELDS,
  [
    'attempts',
    `(select '[' || coalesce(string_agg(${ATTEMPT_JSON}, ',' order by webhook_delivery_attempts.number), '') || ']'
      from webhook_delivery_attempts where webhook_delivery_attempts.delivery_id = webhook_deliveries.id)`,
  ],
  [
    'event',
    `coalesce((select ${EVENT_JSON} from events
      where events.organization_id = webhook_deliveries.organization_id and events.id = webhook_deliveries.event_id),
      'null')`,
  ],
])} as json
  from webhook_deliveries where webhook_deliveries.organization_id = $1 and webhook_deliveries.id = $2`;

/** The organisation's delivery with its attempts and event, or not found (another organisation's too). */
export async function findConsoleDelivery(db: Db, organizationId: string, id: string): Promise<ConsoleDelivery> {
  if (!isUuid(id)) throw errors.notFound('delivery');
  const [row] = await queryNamed<{ json: string }>(db, CONSOLE_DELIVERY_SQL, [organizationId, id]);
  if (!row) throw errors.notFound('delivery');
  return JSON.parse(row.json) as ConsoleDelivery;
}

/** Retries one `Failed` delivery (any other status is `invalid_state`, another organisation's not found). */
export async function retryConsoleDelivery(db: Db, actor: StaffActor, mode: Mode, id: string): Promise<DeliveryView> {
  requireWebhookManagement(actor.role, mode);
  return db.transaction(async (trx) => {
    const retried = await retryDelivery(trx, actor.organizationId, id);
    await recordAudit(trx, actor, mode, {
      action: 'delivery.retried',
      target: retried.id,
      details: { eventType: retried.eventType },
    });
    return retried;
  });
}

/**
 * Retry now: the next attempt of a delivery waiting between attempts, at once (its run keeps the rest of its
 * schedule). The audit entry and the signal share the transaction: a signal refused (the run is gone) records nothing.
 */
export async function retryConsoleDeliveryNow(
  db: Db,
  retryNow: DeliveryRetryNow,
  actor: StaffActor,
  mode: Mode,
  id: string,
): Promise<DeliveryView> {
  requireWebhookManagement(actor.role, mode);
  return db.transaction(async (trx) => {
    const delivery = await lockDeliveryWaitingToRetry(trx, actor.organizationId, id);
    await recordAudit(trx, actor, mode, {
      action: 'delivery.retried_now',
      target: delivery.id,
      details: { eventType: delivery.eventType, attempt: delivery.attemptCount + 1 },
    });
    await retryNow.signal(delivery);
    return delivery;
  });
}

/** Retries the organisation's deliveries failed since `since`, at most RETRY_FAILED_CAP; returns how many. */
export async function retryConsoleFailedSince(db: Db, actor: StaffActor, mode: Mode, since: Date): Promise<number> {
  requireWebhookManagement(actor.role, mode);
  return db.transaction(async (trx) => {
    const count = await retryFailedDeliveries(trx, actor.organizationId, since, RETRY_FAILED_CAP);
    await recordAudit(trx, actor, mode, {
      action: 'deliveries.retried_failed',
      details: { since: since.toISOString(), count, cap: RETRY_FAILED_CAP },
    });
    return count;
  });
}
