/**
 * Storage of idempotent responses (spec §4, DECISIONS.md §5), scoped by organisation and key string.
 * A transaction-scoped advisory lock on (organisation, key) serialises requests with the same key: the holder
 * runs the handler and saves the response in the same transaction; a concurrent one sees the lock taken and is told
 * the first is still in progress. A crash rolls back the handler's writes and the lock together.
 *
 * Response bodies are stored sealed with the SecretBox (bound to the organisation and key): a saved response may
 * carry a secret minted for the client (`PUT /v1/webhooks` answers the `whsec_` secret once), and no secret is kept
 * in plain text at rest. Headers (Location, Content-Type) stay readable.
 */
import { queryNamedRaw } from './prepared';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db, Trx } from './db';
import type { PlainTransaction } from './plain-transaction';
import type { SecretBox } from './secret-box';

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

/** A row of `idempotency_keys`. */
export interface IdempotencyRow {
  organization_id: string;
  key: string;
  fingerprint: string;
  /** Null while the record is pending (a workflow request under way, recordPendingIdempotencyKey). */
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
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

/** `sealed:v1:<iv>.<tag>.<ciphertext>`, each base64url: JSON and text bodies never start with `sealed:`. */
const SEALED_PREFIX = 'sealed:v1:';

function sealBody(box: SecretBox, organizationId: string, key: string, body: string): string {
  const { iv, tag, ciphertext } = box.seal(body, associatedData(organizationId, key));
  return SEALED_PREFIX + [iv, tag, ciphertext].map((part) => part.toString('base64url')).join('.');
}

/** Throws SecretUnreadableError if the box's key cannot open it. Records saved before sealing were plain text. */
function openBody(box: SecretBox, organizationId: string, key: string, stored: string): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  const [iv = '', tag = '', ciphertext = ''] = stored.slice(SEALED_PREFIX.length).split('.');
  const sealed = { iv: b64(iv), tag: b64(tag), ciphertext: b64(ciphertext) };
  return box.open(sealed, associatedData(organizationId, key));
}

const b64 = (text: string) => Buffer.from(text, 'base64url');
const associatedData = (organizationId: string, key: string) => `idempotency:${organizationId}:${key}`;

/**
 * `saved`: the key's response. `pending`: a request that drives a workflow took the key and has not answered yet
 * (its fingerprint, and its request id: the Temporal update id a retry reuses).
 */
export type IdempotencyClaim =
  { locked: false } | { locked: true; saved: IdempotencyRecord | undefined; pending?: PendingIdempotencyRecord };

export interface PendingIdempotencyRecord {
  fingerprint: string;
  requestId: string;
}

export interface ClaimRow extends Pick<IdempotencyRow, 'response_headers' | 'request_id'> {
  locked: boolean;
  fingerprint: string | null;
  response_status: number | null;
  response_body: string | null;
}

/** A SQL string literal that means `value` whatever `standard_conforming_strings` says. */
function sqlLiteral(value: string): string {
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Takes the key's transaction-scoped lock and, when this transaction got it, reads the key's unexpired record: one
 * round trip (the `claim_idempotency_key` function of migration 20261126120000 reads after locking). `locked: false`
 * means another request holds the key.
 *
 * With `savepoint`, the same round trip also sets that savepoint, for the handler that runs next: the two statements
 * go as one simple-protocol query, which takes no parameters, so the (validated, printable ASCII) key and the
 * organisation id are written as literals.
 */
export async function claimIdempotencyKey(
  trx: Trx,
  box: SecretBox,
  organizationId: string,
  key: string,
  savepoint?: string,
): Promise<IdempotencyClaim> {
  let rows: ClaimRow[];
  if (savepoint === undefined) {
    rows = (await trx.raw<{ rows: ClaimRow[] }>('select * from claim_idempotency_key(?, ?)', [organizationId, key]))
      .rows;
  } else {
    if (!/^[a-z_]+$/.test(savepoint)) throw new Error(`not a savepoint name: ${savepoint}`);
    const results = await trx.raw<{ rows: ClaimRow[] }[]>(
      `${claimStatement(organizationId, key)}; savepoint ${savepoint}`,
    );
    rows = results[0]?.rows ?? [];
  }
  return claimOf(box, organizationId, key, rows[0]);
}

/**
 * The claim as one statement of a simple-protocol query, which takes no parameters: the (validated, printable ASCII)
 * key and the organisation id are written as literals. For a query that also opens the transaction or sets a
 * savepoint in the same round trip; its rows are read with `claimOf`.
 */
export function claimStatement(organizationId: string, key: string): string {
  return `select * from claim_idempotency_key(${sqlLiteral(organizationId)}::uuid, ${sqlLiteral(key)})`;
}

/** The claim that `claimStatement`'s row says. */
export function claimOf(
  box: SecretBox,
  organizationId: string,
  key: string,
  row: ClaimRow | undefined,
): IdempotencyClaim {
  if (!row?.locked) return { locked: false };
  if (row.fingerprint === null) return { locked: true, saved: undefined };
  if (row.response_status === null || row.response_body === null) {
    return { locked: true, saved: undefined, pending: { fingerprint: row.fingerprint, requestId: row.request_id } };
  }
  return {
    locked: true,
    saved: {
      fingerprint: row.fingerprint,
      status: row.response_status,
      headers: row.response_headers ?? {},
      body: openBody(box, organizationId, key, row.response_body),
      requestId: row.request_id,
    },
  };
}

/**
 * Whether the key has an unexpired saved response, read without taking the key's lock: for a route whose `prepare`
 * would otherwise do slow work the replay does not need (storing an upload's file). The answer is only a hint; the
 * claim decides.
 */
export async function hasSavedIdempotencyResponse(db: Db, organizationId: string, key: string): Promise<boolean> {
  const row = await db('idempotency_keys')
    .where({ organization_id: organizationId, key })
    .whereNotNull('response_status')
    .andWhere('expires_at', '>', db.fn.now())
    .first('key');
  return row !== undefined;
}

/** Saves (or, over an expired record, replaces) the response for 24 hours, in the transaction that made it. */
export async function saveIdempotencyRecord(
  trx: Trx,
  box: SecretBox,
  organizationId: string,
  key: string,
  fingerprint: string,
  response: SavedResponse,
): Promise<void> {
  await queryNamedRaw(trx, SAVE_RECORD_SQL, saveRecordValues(box, organizationId, key, fingerprint, response));
}

/** `saveIdempotencyRecord` in a plain transaction (core/platform/plain-transaction.ts). */
export async function saveIdempotencyRecordPlainly(
  tx: PlainTransaction,
  box: SecretBox,
  organizationId: string,
  key: string,
  fingerprint: string,
  response: SavedResponse,
): Promise<void> {
  await tx.query(SAVE_RECORD_SQL, saveRecordValues(box, organizationId, key, fingerprint, response));
}

function saveRecordValues(
  box: SecretBox,
  organizationId: string,
  key: string,
  fingerprint: string,
  response: SavedResponse,
): unknown[] {
  return [
    organizationId,
    key,
    fingerprint,
    response.status,
    JSON.stringify(response.headers),
    sealBody(box, organizationId, key, response.body),
    response.requestId,
  ];
}

/** One fixed text, run beneath knex's builder: compiling the insert anew was a measurable part of a POST's CPU. */
const SAVE_RECORD_SQL = `
  insert into idempotency_keys
    (organization_id, key, fingerprint, response_status, response_headers, response_body, request_id, created_at,
     expires_at)
  values (?, ?, ?, ?, ?, ?, ?, current_timestamp(3), now() + interval '${IDEMPOTENCY_TTL_HOURS} hours')
  on conflict (organization_id, key) do update set
    fingerprint = excluded.fingerprint, response_status = excluded.response_status,
    response_headers = excluded.response_headers, response_body = excluded.response_body,
    request_id = excluded.request_id, created_at = excluded.created_at, expires_at = excluded.expires_at`;

/**
 * Marks the key as taken by a request that drives a workflow, before the workflow is asked: the
 * record has the request's fingerprint and id and no response. In the claim's transaction; it expires as a saved one
 * does, and saveIdempotencyRecord replaces it with the response.
 */
export async function recordPendingIdempotencyKey(
  trx: Trx,
  organizationId: string,
  key: string,
  fingerprint: string,
  requestId: string,
): Promise<void> {
  await queryNamedRaw(trx, PENDING_RECORD_SQL, [organizationId, key, fingerprint, requestId]);
}

const PENDING_RECORD_SQL = `
  insert into idempotency_keys (organization_id, key, fingerprint, request_id, created_at, expires_at)
  values (?, ?, ?, ?, current_timestamp(3), now() + interval '${IDEMPOTENCY_TTL_HOURS} hours')
  on conflict (organization_id, key) do update set
    fingerprint = excluded.fingerprint, response_status = null, response_headers = null, response_body = null,
    request_id = excluded.request_id, created_at = excluded.created_at, expires_at = excluded.expires_at`;

/** Frees a pending key whose request was refused for its own input (a 400), so a corrected retry may use it. */
export async function forgetPendingIdempotencyKey(trx: Trx, organizationId: string, key: string): Promise<void> {
  await trx('idempotency_keys').where({ organization_id: organizationId, key }).whereNull('response_status').delete();
}

/**
 * Deletes up to `batchSize` expired records; returns how many went. Run by the retention purge (core/retention/).
 * Expiry is checked again on the rows deleted, so a record saved anew over an expired one meanwhile stays.
 */
export async function deleteExpiredIdempotencyRecords(
  db: Db,
  batchSize = 1000,
  organizationId?: string,
): Promise<number> {
  return db('idempotency_keys')
    .whereIn(
      ['organization_id', 'key'],
      db('idempotency_keys')
        .select('organization_id', 'key')
        .where('expires_at', '<=', db.fn.now())
        .modify((q) => {
          if (organizationId) void q.andWhere('organization_id', organizationId);
        })
        .orderBy('expires_at')
        .limit(batchSize)
        .forUpdate()
        .skipLocked(),
    )
    .andWhere('expires_at', '<=', db.fn.now())
    .delete();
}
