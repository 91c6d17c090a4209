/**
 * `POST /v1/debts`'s bare ceiling under an `Idempotency-Key` (mounted by bare-server.ts, its own process), written
 * from the libraries alone (`pg`, `uuid`, `node:crypto`; nothing of `api/` or `core/`), after what every `/v1`
 * request does (bare-api-routes.ts: request id, key, rate limit, headers, log line). Its own work, line by line:
 *   1. the body read from the socket and kept as text (the fingerprint is of the raw body), then `JSON.parse`;
 *   2. the fingerprint: SHA-256 of `POST /v1/debts`, a newline and the raw body (what a replay is compared by);
 *   3. one connection from the pool; `BEGIN` and the key's claim sent together in one simple query, one round trip
 *      (`claim_idempotency_key`: the key's transaction-scoped advisory lock and the read of its unexpired saved
 *      response). Needed: a replay is answered from the saved response without raising a second debt, and a request
 *      racing one under way is told so (docs/operators/performance.md says why a claim, not only the saved record);
 *   4. the debtor: insert by its reference, `on conflict do nothing returning id` (a debtor whose reference is taken
 *      is reused, never overwritten, as ours does; the bench's references are new, so no second read);
 *   5. the debt: insert, its row returned (one round trip);
 *   6. the debt's JSON as the API answers it (`JSON.stringify` in Node);
 *   7. the `debt.created` event holding that JSON, and in the same statement its webhook delivery when the
 *      organisation has an enabled receiver (none here, as for ours): the outbox's rows, one round trip;
 *   8. the response saved for the key: status, `Location` and content type, the body sealed (AES-256-GCM bound to the
 *      organisation and key: saved bodies are sealed at rest), for 24 hours — the idempotency record, one round trip;
 *   9. `COMMIT` (one round trip), the connection back to the pool;
 *  10. the outbox relays woken: `pg_notify` on their channel, at most once per 10 ms for the process, after a commit
 *      (ours does the same: the relays start the debt's workflow and its deliveries within milliseconds, not at
 *      their next poll; at a thousand debts a second that is a round trip per ten or more requests);
 *  11. `201`, `Location` and the debt's JSON as the answer.
 * Six round trips to PostgreSQL (ours sends four: its debtor, debt, event and delivery are one statement). It
 * checks nothing ours checks (no validation, no replay or conflict answered, no rules of the debt): those are the
 * work the ratio measures. Ids are UUID v7 (time-ordered, from `uuid`) as ours are: with random v4 ids every insert
 * landed on a random page of the events and debts primary keys and the ceiling measured index reads, not inserts.
 */
import { createCipheriv, hash, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { BareWork, Named } from './bare-api-routes';

export interface BareDebtRow {
  id: string;
  debtor_id: string;
  external_account_id: string;
  client_reference: string | null;
  original_principal: string;
  outstanding_principal: string;
  currency: string;
  status: string;
  dispute_reason: string | null;
  dispute_outcome: string | null;
  dispute_resolved_at: Date | null;
  metadata: unknown;
  created_at: Date;
  updated_at: Date;
}

const DEBTOR = `insert into debtors (id, organization_id, reference_id, first_name, last_name, email)
  values ($1, $2, $3, $4, $5, $6) on conflict (organization_id, reference_id) do nothing returning id`;
const DEBTOR_BY_REFERENCE = `select id from debtors where organization_id = $1 and reference_id = $2`;
const DEBT = `insert into debts (id, organization_id, debtor_id, external_account_id, original_principal,
  outstanding_principal, currency, status) values ($1, $2, $3, $4, $5, $5, $6, 'PendingAssignment')
  returning id, debtor_id, external_account_id, client_reference, original_principal, outstanding_principal, currency,
    status, dispute_reason, dispute_outcome, dispute_resolved_at, metadata, created_at, updated_at`;
const EVENT_AND_DELIVERY = `with event as (
    insert into events (id, organization_id, type, data, request_id) values ($1, $2, 'debt.created', $3::json, $4)
    returning id, type, organization_id, request_id)
  insert into webhook_deliveries
    (id, organization_id, event_id, event_type, url, secret_key_id, secret_iv, secret_tag, secret_ciphertext, request_id)
  select $5, c.organization_id, event.id, event.type, c.url, c.secret_key_id, c.secret_iv, c.secret_tag,
         c.secret_ciphertext, event.request_id
    from event join webhook_configs c on c.organization_id = event.organization_id and c.enabled`;
const SAVE = `insert into idempotency_keys
  (organization_id, key, fingerprint, response_status, response_headers, response_body, request_id, expires_at)
  values ($1, $2, $3, 201, $4, $5, $6, now() + interval '24 hours')`;

/** Copies of core/events/wake-up.ts's channel and spacing (harness.test.ts asserts the same). */
export const BARE_OUTBOX_CHANNEL = 'webhook_outbox';
export const BARE_WAKE_SPACING_MS = 10;
const NOTIFY = 'select pg_notify($1, $2)';

/** A SQL string literal (the claim goes with BEGIN in one simple query, which takes no parameters). */
const literal = (value: string) => `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The claim as ours sends it with BEGIN (harness.test.ts asserts the same text as core's `claimStatement`). */
export const bareClaimStatement = (org: string, key: string): string =>
  `select * from claim_idempotency_key(${literal(org)}::uuid, ${literal(key)})`;

/** The debt as `POST /v1/debts` answers it (same fields, same order: harness.test.ts compares it with ours). */
export function bareDebtJson(row: BareDebtRow): string {
  return JSON.stringify({
    id: row.id,
    debtorId: row.debtor_id,
    externalAccountId: row.external_account_id,
    clientReference: row.client_reference,
    originalPrincipal: Number(row.original_principal),
    outstandingPrincipal: Number(row.outstanding_principal),
    currency: row.currency,
    status: row.status,
    disputeReason: row.dispute_reason,
    disputeOutcome: row.dispute_outcome,
    disputeResolvedAt: row.dispute_resolved_at?.toISOString() ?? null,
    plan: null,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  });
}

/** The request's body as text, read from the socket. */
async function readBody(req: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The route's own work, run by bare-api-routes.ts between the key checks and the log line. */
export function debtCreationCeiling(pool: pg.Pool, named: Named): BareWork {
  const sealKey = randomBytes(32);
  // The relays' wake-up after a commit: one notice per BARE_WAKE_SPACING_MS at most, sent from the pool.
  let wakeDue = false;
  let lastWakeAt = 0;
  function wakeRelaysSoon(): void {
    if (wakeDue) return;
    wakeDue = true;
    setTimeout(
      () => {
        wakeDue = false;
        lastWakeAt = Date.now();
        pool.query(named(NOTIFY, [BARE_OUTBOX_CHANNEL, ''])).catch(() => undefined);
      },
      Math.max(0, lastWakeAt + BARE_WAKE_SPACING_MS - Date.now()),
    ).unref();
  }

  function seal(body: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
    return `sealed:v1:${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.')}`;
  }

  async function create(
    org: string,
    key: string,
    fingerprint: string,
    requestId: string,
    body: Record<string, string>,
  ) {
    const client = await pool.connect();
    try {
      const [, claim] = (await client.query(`begin; ${bareClaimStatement(org, key)}`)) as unknown as pg.QueryResult<{
        locked: boolean;
        fingerprint: string | null;
      }>[];
      const claimed = claim?.rows[0];
      if (!claimed?.locked || claimed.fingerprint !== null) throw new Error('the key is taken');
      const inserted = await client.query<{ id: string }>(
        named(DEBTOR, [
          uuidv7(),
          org,
          body.debtorReferenceId,
          body.debtorFirstName,
          body.debtorLastName,
          body.debtorEmail,
        ]),
      );
      const debtorId =
        inserted.rows[0]?.id ??
        (await client.query<{ id: string }>(named(DEBTOR_BY_REFERENCE, [org, body.debtorReferenceId]))).rows[0]!.id;
      const debt = await client.query<BareDebtRow>(
        named(DEBT, [uuidv7(), org, debtorId, body.externalAccountId, body.originalPrincipal, body.currency]),
      );
      const row = debt.rows[0]!;
      const json = bareDebtJson(row);
      const eventId = `evt_${uuidv7().replace(/-/g, '')}`;
      await client.query(named(EVENT_AND_DELIVERY, [eventId, org, `{"debt":${json}}`, requestId, uuidv7()]));
      const headers = { Location: `/v1/debts/${row.id}`, 'Content-Type': 'application/json; charset=utf-8' };
      const sealed = seal(json, `idempotency:${org}:${key}`);
      await client.query(named(SAVE, [org, key, fingerprint, JSON.stringify(headers), sealed, requestId]));
      await client.query('commit');
      wakeRelaysSoon();
      return { json, location: headers.Location };
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
  }

  return async (ctx: Koa.Context, found, requestId): Promise<void> => {
    const raw = await readBody(ctx.req);
    const body = JSON.parse(raw) as Record<string, string>;
    const fingerprint = hash('sha256', `POST /v1/debts\n${raw}`, 'hex');
    const key = ctx.get('idempotency-key');
    const { json, location } = await create(found.organizationId, key, fingerprint, requestId, body);
    ctx.status = 201;
    ctx.set('Location', location);
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = json;
  };
}
