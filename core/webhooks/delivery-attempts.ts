/**
 * The rows one delivery attempt reads and writes (DECISIONS §4): what it needs to send, in one statement, and its
 * record with the delivery's new status, in another. By delivery id only, whatever the organisation: the attempt acts
 * for the system, not for a caller. The delivery log clients read is deliveries.ts.
 */
import type { Db } from '../platform/db';
import { prepared } from '../platform/prepared';
import type { SealedSecret } from '../platform/secret-box';
import type { EventRow } from '../events/outbox';
import type { DeliveryRow, DeliveryStatus } from './deliveries';

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
  const row = await prepared(
    db('webhook_deliveries as d')
      .leftJoin('events as e', 'e.id', 'd.event_id')
      .leftJoin('webhook_configs as c', (join) =>
        join.on('c.organization_id', 'd.organization_id').andOnVal('c.enabled', true),
      )
      .where('d.id', deliveryId)
      .first<AttemptContextRow | undefined>('d.*', EVENT_COLUMNS, RECEIVER_COLUMNS),
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
  } = row;
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
