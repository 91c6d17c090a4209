/**
 * Events and the outbox (DECISIONS.md §4): an event is inserted by the same transaction as the change that caused
 * it, so a committed change always has its event and a rolled-back one never does. The webhook relay reads the
 * undispatched rows; `GET /v1/events` reads them all.
 */
import type { Trx } from '../platform/db';
import type { PlainTransaction } from '../platform/plain-transaction';
import type { SqlPart } from '../platform/sql-part';
import { newEventId, newId } from '../platform/ids';
import { isBulkWork } from './bulk-work';
import { requestIdOf } from './request-cause';
import { wakeRelaysOnCommit, wakeRelaysSoon } from './wake-up';

export const EVENT_TYPES = [
  'debt.created',
  'debt.updated',
  'debt.accepted',
  'debt.disputed',
  'payment.received',
  'payment.refunded',
  'plan.activated',
  'plan.defaulted',
  'placement.completed',
  'placement.failed',
  'test.ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The envelope of spec §6, exactly as delivered and as listed. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
}

/** A row of `events`. `txid` (xid8, as text) and `seq` are its outbox position, set by the database. */
export interface EventRow {
  id: string;
  organization_id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
  txid: string;
  seq: number;
  /** The API request that caused the event (its `X-Request-Id`); null when none did (a timer, a worker). */
  request_id: string | null;
  /** Recorded by bulk work (a placement's import, bulk-work.ts): what follows it comes after the tenant's other work. */
  bulk: boolean;
}

export function toEventEnvelope(row: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>): EventEnvelope {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data: row.data };
}

/**
 * The `event` and `delivery` CTEs of `recordEvent`, for a statement of `trx` that also makes the change (e.g. raising
 * a debt in one round trip): `data` is the SQL of the event's JSON text, selected `from` the statement's other CTEs
 * when given. No row in `from`, no event. Both rows carry the request `trx` works for (request-cause.ts), and the
 * relays are woken once `trx` commits (wake-up.ts): whoever records an event gets both, whichever way it does.
 */
export function eventCtes(trx: Trx, organizationId: string, type: EventType, data: SqlPart, from?: string): SqlPart {
  wakeRelaysOnCommit(trx);
  return eventCtesFor({ requestId: requestIdOf(trx), bulk: isBulkWork(trx) }, organizationId, type, data, from);
}

/** `eventCtes` for a statement of a plain transaction (core/platform/plain-transaction.ts): the same rows and wake-up. */
export function plainEventCtes(
  tx: PlainTransaction,
  organizationId: string,
  type: EventType,
  data: SqlPart,
  from?: string,
): SqlPart {
  tx.onCommit(() => wakeRelaysSoon(tx.pool));
  return eventCtesFor({ requestId: tx.requestId, bulk: false }, organizationId, type, data, from);
}

/** What caused an event: the API request (if any), and whether it is bulk work (bulk-work.ts). */
interface EventCause {
  requestId: string | null;
  bulk: boolean;
}

function eventCtesFor(
  cause: EventCause,
  organizationId: string,
  type: EventType,
  data: SqlPart,
  from: string | undefined,
): SqlPart {
  return {
    sql: `event as (
       insert into events (id, organization_id, type, data, request_id, bulk)
       select ?, ?, ?, ${data.sql}, ?::text, ?::boolean ${from ? `from ${from}` : ''}
       returning id, organization_id, type, data, created_at, request_id, bulk
     ), delivery as (
       insert into webhook_deliveries
         (id, organization_id, event_id, event_type, url, secret_key_id, secret_iv, secret_tag, secret_ciphertext,
          request_id, bulk)
       select ?, c.organization_id, event.id, event.type, c.url, c.secret_key_id, c.secret_iv, c.secret_tag,
              c.secret_ciphertext, event.request_id, event.bulk
         from event join webhook_configs c on c.organization_id = event.organization_id and c.enabled
       returning id
     )`,
    bindings: [newEventId(), organizationId, type, ...data.bindings, cause.requestId, cause.bulk, newId()],
  };
}

/**
 * Records an event in the transaction that makes the change: that is what makes the outbox atomic, so it takes a
 * `Trx`, never the pool. `data` holds resources as the API returns them (e.g. `{ debt }`).
 *
 * In the same statement, when the organisation's webhook receiver is enabled, the event's delivery is enqueued with a
 * snapshot of the receiver's URL and sealed secret (DECISIONS.md §4): whether an event is delivered, and where, is
 * decided when it is emitted, so clearing the receiver during a backlog does not drop events already emitted. The
 * delivery's workflow is started later by the webhook delivery consumer.
 *
 * Both rows carry the id of the API request `trx` works for, if any (request-cause.ts), so an operator can follow a
 * client's `X-Request-Id` to the event, its delivery and the delivery's workflow.
 */
export async function recordEvent(
  trx: Trx,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<EventEnvelope & { deliveryId: string | null }> {
  const ctes = eventCtes(trx, organizationId, type, { sql: '?::json', bindings: [JSON.stringify(data)] });
  const { rows } = await trx.raw<{
    rows: (Pick<EventRow, 'id' | 'type' | 'data' | 'created_at'> & { delivery_id: string | null })[];
  }>(
    `with ${ctes.sql}
     select event.id, event.type, event.data, event.created_at, (select id from delivery) as delivery_id from event`,
    ctes.bindings,
  );
  const row = rows[0];
  if (!row) throw new Error('insert into events returned no row');
  return { ...toEventEnvelope(row), deliveryId: row.delivery_id };
}
