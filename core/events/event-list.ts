/**
 * Reading the events of an organisation (GET /v1/events): the outbox doubles as the client's event log.
 *
 * Newest first by outbox position (the writing transaction's id, then the sequence), and only below the horizon,
 * where no transaction is still running (core/events/cursor.ts explains positions). Ordering by the time a row was
 * written would let an event whose transaction committed late appear *below* events the client had already seen, and
 * a client that remembers the newest event it read would miss it. Below the horizon, nothing can ever be written
 * before an event already listed: new events only ever appear at the top. An event shows up as soon as every
 * transaction that started before its own has ended (usually within milliseconds of its commit).
 */
import type { Db } from '../platform/db';
import { isEventId } from '../platform/ids';
import { errors } from '../platform/errors';
import { equalTo, fetchJsonRows, jsonObject, jsonTime, jsonValue, JsonPage } from '../platform/json-page';
import type { PageRequest } from '../platform/pagination';
import { prepared } from '../platform/prepared';
import type { EventType } from './outbox';
import type { CursorPosition } from './cursor';

const LIST = 'events';

export function encodeEventCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ l: LIST, x: position.txid, s: position.seq })).toString('base64url');
}

export function decodeEventCursor(cursor: string): CursorPosition {
  const invalid = errors.invalidRequest('The cursor is not valid for this list.', [
    { path: 'query.cursor', message: 'is not a cursor of this list' },
  ]);
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    throw invalid;
  }
  const { l, x, s } = (parsed ?? {}) as { l?: unknown; x?: unknown; s?: unknown };
  const validTxid = typeof x === 'string' && /^[0-9]{1,20}$/.test(x) && BigInt(x) < 2n ** 64n;
  if (l !== LIST || !validTxid || typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) throw invalid;
  return { txid: x, seq: s };
}

/**
 * An event as listed, as JSON text: the delivered envelope (DECISIONS.md §4 fixes its fields; `data` kept as written,
 * a json column holding what JSON.stringify wrote) plus the id of the API request that caused it, null when none did
 * (docs/product-choices.md).
 */
export const EVENT_JSON = jsonObject([
  ['id', jsonValue('events.id')],
  ['type', jsonValue('events.type')],
  ['createdAt', jsonTime('events.created_at')],
  ['data', 'events.data::text'],
  ['requestId', jsonValue('events.request_id')],
]);

/** PostgreSQL writes the page's JSON (core/platform/json-page.ts): the same bytes `toEventEnvelope` gave. */
export async function listEvents(
  db: Db,
  organizationId: string,
  type: EventType | undefined,
  page: PageRequest,
): Promise<JsonPage> {
  const after = page.cursor ? decodeEventCursor(page.cursor) : undefined;
  const { dataJson, last } = await fetchJsonRows<CursorPosition>(db, {
    from: 'events',
    where: [
      ...equalTo({ organization_id: organizationId, type }),
      { sql: 'txid < pg_snapshot_xmin(pg_current_snapshot())', bindings: [] },
      ...(after ? [{ sql: '(txid, seq) < (?::xid8, ?)', bindings: [after.txid, after.seq] }] : []),
    ],
    item: EVENT_JSON,
    order: ['events.txid', 'events.seq'],
    positionColumns: ['txid', 'seq'],
    limit: page.limit,
  });
  return new JsonPage(dataJson, last ? encodeEventCursor(last) : null);
}

/** One of the organisation's events as JSON text (the listed shape), or undefined; a malformed id is not found. */
export async function getEventJson(db: Db, organizationId: string, id: string): Promise<string | undefined> {
  if (!isEventId(id)) return undefined;
  const row = await prepared(
    db('events')
      .where({ organization_id: organizationId, id })
      .first<{ json: string } | undefined>(db.raw(`${EVENT_JSON} as json`)),
  );
  return row?.json;
}
