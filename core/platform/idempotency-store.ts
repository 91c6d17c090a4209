/**
 * Storage of idempotent responses (spec §4, DECISIONS.md §5), scoped by organisation and key string.
 * A transaction-scoped advisory lock on (organisation, key) serialises requests with the same key: the holder
 * runs the handler and saves the response in the same transaction; a concurrent one sees the lock taken and is told
 * the first is still in progress. A crash rolls back the handler's writes and the lock together.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db, Trx } from './db';

export const IDEMPOTENCY_TTL_HOURS = 24;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  requestId: string;
}

export interface IdempotencyRecord extends SavedResponse {
  fingerprint: string;
}

export function requestFingerprint(method: string, path: string, rawBody: string): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${rawBody}`, 'utf8').digest('hex');
}

/** True when this transaction now holds the key's lock; false when another request holds it. */
export async function tryLockIdempotencyKey(trx: Trx, organizationId: string, key: string): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { locked: boolean }[] }>(
    'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked',
    [`idempotency:${organizationId}:${key}`],
  );
  return rows[0]?.locked === true;
}

/** A row of `idempotency_keys`. */
export interface IdempotencyRow {
  organization_id: string;
  key: string;
  fingerprint: string;
  response_status: number;
  response_headers: Record<string, string>;
  response_body: string;
  request_id: string;
  created_at: Date;
  expires_at: Date;
}

/** The table for knex: the jsonb headers are written as JSON text and read back as an object. */
export type IdempotencyKeyTable = Knex.CompositeTableType<
  IdempotencyRow,
  Omit<IdempotencyRow, 'response_headers' | 'created_at' | 'expires_at'> & {
    response_headers: string;
    created_at: Knex.Raw;
    expires_at: Knex.Raw;
  }
>;

export async function findIdempotencyRecord(
  db: Db,
  organizationId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const row = await db('idempotency_keys')
    .where({ organization_id: organizationId, key })
    .where('expires_at', '>', db.fn.now())
    .first('fingerprint', 'response_status', 'response_headers', 'response_body', 'request_id');
  if (!row) return undefined;
  return {
    fingerprint: row.fingerprint,
    status: row.response_status,
    headers: row.response_headers,
    body: row.response_body,
    requestId: row.request_id,
  };
}

/** Saves (or, over an expired record, replaces) the response for 24 hours, in the transaction that made it. */
export async function saveIdempotencyRecord(
  trx: Trx,
  organizationId: string,
  key: string,
  fingerprint: string,
  response: SavedResponse,
): Promise<void> {
  await trx('idempotency_keys')
    .insert({
      organization_id: organizationId,
      key,
      fingerprint,
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      request_id: response.requestId,
      created_at: trx.fn.now(3),
      expires_at: trx.raw(`now() + interval '${IDEMPOTENCY_TTL_HOURS} hours'`),
    })
    .onConflict(['organization_id', 'key'])
    .merge();
}

/** Deletes expired records in batches; returns how many went. Run periodically by each API process. */
export async function deleteExpiredIdempotencyRecords(db: Db, batchSize = 1000): Promise<number> {
  return db('idempotency_keys')
    .whereIn(
      ['organization_id', 'key'],
      db('idempotency_keys').select('organization_id', 'key').where('expires_at', '<=', db.fn.now()).limit(batchSize),
    )
    .delete();
}
