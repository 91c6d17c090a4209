/**
 * Webhook deliveries and their attempts (DECISIONS §4): the delivery log clients read, and the rows the delivery
 * activity reads and writes. Every read is scoped by organisation; the activity's reads are by delivery id only,
 * because it acts for the system, not for a caller.
 */
import type { Db, Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { fetchJsonPage, type PageRequest } from '../platform/pagination';
import { equalTo, jsonObject, jsonTime, jsonValue, type JsonPage } from '../platform/json-page';
import { prepared } from '../platform/prepared';
import type { SealedSecret } from '../platform/secret-box';
import type { EventRow } from '../events/outbox';
import { wakeRelays } from '../events/wake-up';

export const DELIVERY_STATUSES = ['Pending', 'Succeeded', 'Failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Bytes of the receiver's answer kept per attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** A row of `webhook_deliveries`: the receiver's URL and sealed secret as snapshotted when it was enqueued. */
export interface DeliveryRow {
  id: string;
  organization_id: string;
  event_id: string;
  event_type: string;
  url: string;
  secret_key_id: string | null;
  secret_iv: Buffer;
  secret_tag: Buffer;
  secret_ciphertext: Buffer;
  status: DeliveryStatus;
  generation: number;
  attempt_count: number;
  attempt_base: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  workflow_started_at: Date | null;
  /** The API request that caused the delivery's event (its `X-Request-Id`), or null. */
  request_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A row of `webhook_delivery_attempts`. */
export interface AttemptRow {
  delivery_id: string;
  number: number;
  url: string;
  started_at: Date;
  succeeded: boolean;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  url: string;
  status: DeliveryStatus;
  attemptCount: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  requestId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AttemptView {
  number: number;
  startedAt: string;
  url: string;
  succeeded: boolean;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

export interface DeliveryDetail extends DeliveryView {
  attempts: AttemptView[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    url: row.url,
    status: row.status,
    attemptCount: row.attempt_count,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: iso(row.next_attempt_at),
    requestId: row.request_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toAttemptView(row: AttemptRow): AttemptView {
  return {
    number: row.number,
    startedAt: row.started_at.toISOString(),
    url: row.url,
    succeeded: row.succeeded,
    httpStatus: row.http_status,
    latencyMs: row.latency_ms,
    error: row.error,
    responseBody: row.response_body,
  };
}

export function snapshotSecret(row: DeliveryRow): SealedSecret {
  return { keyId: row.secret_key_id, iv: row.secret_iv, tag: row.secret_tag, ciphertext: row.secret_ciphertext };
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}

/** A `DeliveryView` as JSON text, the same bytes JSON.stringify(toDeliveryView(row)) writes. */
const DELIVERY_JSON = jsonObject([
  ['id', jsonValue('webhook_deliveries.id')],
  ['eventId', jsonValue('webhook_deliveries.event_id')],
  ['eventType', jsonValue('webhook_deliveries.event_type')],
  ['url', jsonValue('webhook_deliveries.url')],
  ['status', jsonValue('webhook_deliveries.status')],
  ['attemptCount', jsonValue('webhook_deliveries.attempt_count')],
  ['lastAttemptAt', jsonTime('webhook_deliveries.last_attempt_at')],
  ['nextAttemptAt', jsonTime('webhook_deliveries.next_attempt_at')],
  ['requestId', jsonValue('webhook_deliveries.request_id')],
  ['createdAt', jsonTime('webhook_deliveries.created_at')],
  ['updatedAt', jsonTime('webhook_deliveries.updated_at')],
]);

/** Newest first; PostgreSQL writes the page's JSON (core/platform/json-page.ts). */
export async function listDeliveries(
  db: Db,
  organizationId: string,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<JsonPage> {
  return fetchJsonPage(db, {
    list: 'webhook-deliveries',
    page,
    from: 'webhook_deliveries',
    where: equalTo({ organization_id: organizationId, status: filter.status, event_type: filter.eventType }),
    item: DELIVERY_JSON,
  });
}

export async function getDelivery(db: Db, organizationId: string, id: string): Promise<DeliveryDetail | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('webhook_deliveries').where({ organization_id: organizationId, id }).first();
  if (!row) return undefined;
  const attempts = await db('webhook_delivery_attempts').where({ delivery_id: id }).orderBy('number');
  return { ...toDeliveryView(row), attempts: attempts.map(toAttemptView) };
}

/**
 * Delivers a `Failed` delivery again: same delivery id, a new run of the whole schedule (a new generation), started by
 * the webhook delivery consumer's sweep, which this wakes (at the caller's commit). Any other status is `invalid_state`.
 */
export async function retryDelivery(trx: Trx, organizationId: string, id: string): Promise<DeliveryView> {
  if (!isUuid(id)) throw errors.notFound('delivery');
  const row = await trx('webhook_deliveries').where({ organization_id: organizationId, id }).forUpdate().first();
  if (!row) throw errors.notFound('delivery');
  if (row.status !== 'Failed') {
    throw new ApiError('invalid_state', `Only a Failed delivery can be retried; this one is ${row.status}.`);
  }
  const [updated] = await trx('webhook_deliveries')
    .where({ id })
    .update({
      status: 'Pending',
      generation: row.generation + 1,
      attempt_base: row.attempt_count,
      next_attempt_at: null,
      workflow_started_at: null,
      updated_at: trx.fn.now(3),
    })
    .returning('*');
  if (!updated) throw new Error('the locked delivery row was not updated');
  await wakeRelays(trx);
  return toDeliveryView(updated);
}

/** The event columns an attempt sends, read with the delivery in one round trip (prefixed so they cannot collide). */
const EVENT_COLUMNS = {
  event_row_id: 'e.id',
  event_row_type: 'e.type',
  event_row_data: 'e.data',
  event_row_created_at: 'e.created_at',
};

/** The organisation's receiver as configured now, read in the same round trip; null columns while none is enabled. */
const RECEIVER_COLUMNS = {
  receiver_url: 'c.url',
  receiver_secret_key_id: 'c.secret_key_id',
  receiver_secret_iv: 'c.secret_iv',
  receiver_secret_tag: 'c.secret_tag',
  receiver_secret_ciphertext: 'c.secret_ciphertext',
};

type AttemptContextRow = DeliveryRow & {
  event_row_id: string | null;
  event_row_type: EventRow['type'];
  event_row_data: EventRow['data'];
  event_row_created_at: Date;
  receiver_url: string | null;
  receiver_secret_key_id: string | null;
  receiver_secret_iv: Buffer | null;
  receiver_secret_tag: Buffer | null;
  receiver_secret_ciphertext: Buffer | null;
};

/** The receiver an organisation has enabled now: its URL and sealed signing secret. */
export interface CurrentReceiver {
  url: string;
  sealed: SealedSecret;
}

/** What one attempt needs: the delivery, its event, and the receiver enabled now (null while none is). */
export interface AttemptContext {
  delivery: DeliveryRow;
  event: Pick<EventRow, 'id' | 'type' | 'data' | 'created_at'>;
  receiver: CurrentReceiver | null;
}

/**
 * For the delivery activity: the delivery, its event and its organisation's current receiver, whatever the
 * organisation, in one statement (one round trip and one snapshot). Undefined when the delivery or its event is gone.
 */
export async function loadAttemptContext(db: Db, deliveryId: string): Promise<AttemptContext | undefined> {
  const row: unknown = await prepared(
    db('webhook_deliveries as d')
      .leftJoin('events as e', 'e.id', 'd.event_id')
      .leftJoin('webhook_configs as c', (join) =>
        join.on('c.organization_id', 'd.organization_id').andOnVal('c.enabled', true),
      )
      .where('d.id', deliveryId)
      .first('d.*', EVENT_COLUMNS, RECEIVER_COLUMNS),
  );
  if (!row) return undefined;
  const {
    event_row_id: id,
    event_row_type: type,
    event_row_data: data,
    event_row_created_at: created_at,
    receiver_url: url,
    receiver_secret_key_id: keyId,
    receiver_secret_iv: iv,
    receiver_secret_tag: tag,
    receiver_secret_ciphertext: ciphertext,
    ...delivery
  } = row as AttemptContextRow;
  if (id === null) return undefined;
  const receiver = url && iv && tag && ciphertext ? { url, sealed: { keyId, iv, tag, ciphertext } } : null;
  return { delivery, event: { id, type, data, created_at }, receiver };
}

export interface AttemptRecord {
  deliveryId: string;
  generation: number;
  number: number;
  url: string;
  startedAt: Date;
  succeeded: boolean;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** Status after this attempt: Succeeded, Failed (last attempt of the run) or Pending. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Records one attempt and the delivery's new status, atomically. Idempotent per attempt number: an activity retried
 * after a crash overwrites its own row. Only the current generation's run may move a Pending delivery.
 */
export async function recordAttempt(db: Db, a: AttemptRecord): Promise<boolean> {
  // One statement, so one round trip and atomic without a transaction: the delivery moves only if this run still owns
  // it and it is still Pending, and the attempt is logged only if it moved (a retried activity rewrites its own row).
  const { rows } = await prepared(
    db.raw<{ rows: unknown[] }>(
      `with moved as (
       update webhook_deliveries
          set status = ?, attempt_count = greatest(attempt_count, ?), last_attempt_at = ?, next_attempt_at = ?,
              updated_at = current_timestamp(3)
        where id = ? and generation = ? and status = 'Pending'
        returning id)
     insert into webhook_delivery_attempts
       (delivery_id, number, url, started_at, succeeded, http_status, latency_ms, error, response_body)
     select id, ?::integer, ?::text, ?::timestamptz, ?::boolean, ?::integer, ?::integer, ?::text, ?::text from moved
     on conflict (delivery_id, number) do update set url = excluded.url, started_at = excluded.started_at,
       succeeded = excluded.succeeded, http_status = excluded.http_status, latency_ms = excluded.latency_ms,
       error = excluded.error, response_body = excluded.response_body
     returning delivery_id`,
      [
        a.status,
        a.number,
        a.startedAt,
        a.nextAttemptAt,
        a.deliveryId,
        a.generation,
        a.number,
        a.url,
        a.startedAt,
        a.succeeded,
        a.httpStatus,
        a.latencyMs,
        a.error,
        a.responseBody,
      ],
    ),
  );
  return rows.length === 1;
}
