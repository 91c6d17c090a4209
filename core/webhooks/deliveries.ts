/**
 * Webhook deliveries and their attempts (DECISIONS §4): the delivery log clients read, and a manual retry. Every read
 * is scoped by organisation. What one attempt reads and writes, by delivery id, is delivery-attempts.ts.
 */
import type { Db, Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { fetchJsonPage, type PageRequest } from '../platform/pagination';
import { prepared } from '../platform/prepared';
import { equalTo, jsonObject, jsonTime, jsonValue, type JsonPage } from '../platform/json-page';
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
  /** Its event was bulk work (a placement's import, core/events/bulk-work.ts): started after its organisation's others. */
  bulk: boolean;
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

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
  /** Created at or after (the console's date range; the API does not offer it). */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
}

/** A `DeliveryView`'s fields as JSON text expressions over `webhook_deliveries`, in its key order. */
export const DELIVERY_JSON_FIELDS: [string, string][] = [
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
];

/** A `DeliveryView` as JSON text, the same bytes JSON.stringify(toDeliveryView(row)) writes. */
const DELIVERY_JSON = jsonObject(DELIVERY_JSON_FIELDS);

/** An `AttemptView` as JSON text over `webhook_delivery_attempts`, the bytes JSON.stringify(toAttemptView(row)) writes. */
export const ATTEMPT_JSON = jsonObject([
  ['number', jsonValue('webhook_delivery_attempts.number')],
  ['startedAt', jsonTime('webhook_delivery_attempts.started_at')],
  ['url', jsonValue('webhook_delivery_attempts.url')],
  ['succeeded', jsonValue('webhook_delivery_attempts.succeeded')],
  ['httpStatus', jsonValue('webhook_delivery_attempts.http_status')],
  ['latencyMs', jsonValue('webhook_delivery_attempts.latency_ms')],
  ['error', jsonValue('webhook_delivery_attempts.error')],
  ['responseBody', jsonValue('webhook_delivery_attempts.response_body')],
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
    where: [
      ...equalTo({ organization_id: organizationId, status: filter.status, event_type: filter.eventType }),
      ...(filter.createdFrom ? [{ sql: 'webhook_deliveries.created_at >= ?', bindings: [filter.createdFrom] }] : []),
      ...(filter.createdBefore ? [{ sql: 'webhook_deliveries.created_at < ?', bindings: [filter.createdBefore] }] : []),
    ],
    item: DELIVERY_JSON,
  });
}

export async function getDelivery(db: Db, organizationId: string, id: string): Promise<DeliveryDetail | undefined> {
  if (!isUuid(id)) return undefined;
  // Named statements: parsed and planned once per connection (core/platform/prepared.ts), as the lists are.
  const row = await prepared(db('webhook_deliveries').where({ organization_id: organizationId, id }).first());
  if (!row) return undefined;
  const attempts = await prepared(db('webhook_delivery_attempts').where({ delivery_id: id }).orderBy('number'));
  return { ...toDeliveryView(row), attempts: attempts.map(toAttemptView) };
}

/**
 * What a retry writes: Pending again, a new generation whose attempts are numbered on from the last one, and no
 * workflow started yet (the delivery consumer's sweep starts it).
 */
function retriedColumns(trx: Trx) {
  return {
    status: 'Pending' as const,
    generation: trx.raw('generation + 1'),
    attempt_base: trx.raw('attempt_count'),
    next_attempt_at: null,
    workflow_started_at: null,
    start_claimed_until: null, // owed at once: a claim left from the last run's start does not hold it back
    updated_at: trx.fn.now(3),
  };
}

/**
 * Delivers a `Failed` delivery again: same delivery id, a new run of the whole schedule (a new generation), started by
 * the webhook delivery consumer's sweep, which this wakes (at the caller's commit). Any other status is `invalid_state`.
 * A placement's delivery retried this way is no longer bulk work (core/events/bulk-work.ts): somebody is waiting for
 * this one, so its run starts in its organisation's next turn at the default priority, not after its placement's.
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
    .update({ ...retriedColumns(trx), bulk: false })
    .returning('*');
  if (!updated) throw new Error('the locked delivery row was not updated');
  await wakeRelays(trx);
  return toDeliveryView(updated);
}

/** The most deliveries one "retry all failed" request queues. */
export const RETRY_FAILED_CAP = 1_000;

/**
 * Retries, as `retryDelivery` does, the organisation's deliveries that reached `Failed` at or after `since` (their
 * last change), oldest failure first, at most `cap` of them; returns how many were queued. Rows another transaction
 * holds are skipped (a concurrent retry of the same delivery), so two requests never queue one delivery twice. Each
 * stays bulk work or not as it was: up to a thousand placement deliveries at once do not go before the organisation's
 * API debts' deliveries.
 */
export async function retryFailedDeliveries(
  trx: Trx,
  organizationId: string,
  since: Date,
  cap = RETRY_FAILED_CAP,
): Promise<number> {
  const chosen = trx('webhook_deliveries')
    .where({ organization_id: organizationId, status: 'Failed' })
    .where('updated_at', '>=', since)
    .orderBy([{ column: 'updated_at' }, { column: 'id' }])
    .limit(cap)
    .forUpdate()
    .skipLocked()
    .select('id');
  // Chosen once, in a materialised CTE: a `LIMIT … SKIP LOCKED` subquery inside `IN` may be run again by the plan
  // (a rescan skips other rows), which retried 1,001 deliveries under a cap of 1,000 in a browser test.
  const updated = await trx('webhook_deliveries')
    .withMaterialized('chosen', chosen)
    .whereIn('id', trx.select('id').from('chosen'))
    .where({ organization_id: organizationId, status: 'Failed' })
    .update(retriedColumns(trx))
    .returning('id');
  if (updated.length > 0) await wakeRelays(trx);
  return updated.length;
}
