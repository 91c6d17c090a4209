/**
 * The Deliveries and Events pages: the delivery log and the event log through the services GET
 * /v1/webhooks/deliveries and GET /v1/events use (the same keyset pages and cursors), a delivery with its attempts and
 * its event's payload, and the two retries: one `Failed` delivery (POST /v1/webhooks/deliveries/{id}/retry's service)
 * and every delivery failed since a date, capped per request. Reads take the organisation first; another
 * organisation's delivery is not found. Writes check the role first and are audited in their own transaction.
 */
import { getEventJson, listEvents } from '../events/event-list';
import type { EventType } from '../events/outbox';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import type { PageRequest } from '../platform/pagination';
import {
  getDelivery,
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

/** The organisation's delivery with its attempts and event, or not found (another organisation's too). */
export async function findConsoleDelivery(db: Db, organizationId: string, id: string): Promise<ConsoleDelivery> {
  const delivery = await getDelivery(db, organizationId, id);
  if (!delivery) throw errors.notFound('delivery');
  const eventJson = await getEventJson(db, organizationId, delivery.eventId);
  return { ...delivery, event: eventJson ? (JSON.parse(eventJson) as ConsoleEvent) : null };
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
