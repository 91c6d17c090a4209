/**
 * `POST /v1/debts`'s bare ceiling (mounted by bare-server.ts, its own process): the same work as ours under an
 * Idempotency-Key, with nothing around it, on the plain `pg` driver as named statements:
 *   - what every `/v1` request does, as the organisation's ceiling does it: the request id, the bearer key hashed and
 *     found in memory, the same two-window Lua script in Redis, the `X-RateLimit-*` headers, one pino line;
 *   - the key's fingerprint (SHA-256 of method, path and raw body) and its claim: the transaction-scoped lock and the
 *     read of a saved response (the database's `claim_idempotency_key`), sent with `BEGIN` as ours sends it;
 *   - the debtor (upsert by reference), the debt (its row returned), its `debt.created` event holding the debt as the
 *     API returns it, the event's delivery when the organisation has an enabled receiver (none here, as for ours);
 *   - the response saved as ours saves it: its status, headers and body, the body sealed (AES-256-GCM), for 24 hours;
 *   - `COMMIT`, and the debt's JSON with its `Location` as the answer.
 * It checks nothing ours checks (no validation, no replay or conflict answered, no rules of the debt): those are the
 * work the ratio measures. Ids are UUID v7 (time-ordered) as ours are: with random v4 ids every insert landed on a
 * random page of the events and debts primary keys, read from disk once the bench database held the list tenants'
 * million rows, and the ceiling measured index reads, not the inserts.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type pg from 'pg';
import { newEventId, newId } from '../../core/platform/ids';
import type { BareWork, Named } from './bare-api-routes';

interface DebtRow {
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
  values ($1, $2, $3, $4, $5, $6)
  on conflict (organization_id, reference_id) do update set updated_at = now() returning id`;
const DEBT = `insert into debts (id, organization_id, debtor_id, external_account_id, original_principal,
  outstanding_principal, currency, status) values ($1, $2, $3, $4, $5, $5, $6, 'PendingAssignment')
  returning id, debtor_id, external_account_id, client_reference, original_principal, outstanding_principal, currency,
    status, dispute_reason, dispute_outcome, dispute_resolved_at, metadata, created_at, updated_at`;
const EVENT = `insert into events (id, organization_id, type, data, request_id)
  values ($1, $2, 'debt.created', $3::json, $4) returning id, type`;
const DELIVERY = `insert into webhook_deliveries
  (id, organization_id, event_id, event_type, url, secret_key_id, secret_iv, secret_tag, secret_ciphertext, request_id)
  select $1, c.organization_id, $2, $3, c.url, c.secret_key_id, c.secret_iv, c.secret_tag, c.secret_ciphertext, $4
    from webhook_configs c where c.organization_id = $5 and c.enabled`;
const SAVE = `insert into idempotency_keys
  (organization_id, key, fingerprint, response_status, response_headers, response_body, request_id, expires_at)
  values ($1, $2, $3, 201, $4, $5, $6, now() + interval '24 hours')`;

/** A SQL string literal (the claim goes with BEGIN in one simple query, which takes no parameters, as ours sends it). */
const literal = (value: string) => `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function debtJson(row: DebtRow): string {
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

/** The route's own work, run by bare-api-routes.ts between the key checks and the log line. */
export function debtCreationCeiling(pool: pg.Pool, named: Named): BareWork {
  const sealKey = randomBytes(32);
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
      const [, claim] = (await client.query(
        `begin; select * from claim_idempotency_key(${literal(org)}::uuid, ${literal(key)})`,
      )) as unknown as pg.QueryResult<{ locked: boolean }>[];
      if (!claim?.rows[0]?.locked) throw new Error('the key is taken');
      const debtor = await client.query<{ id: string }>(
        named(DEBTOR, [
          newId(),
          org,
          body.debtorReferenceId,
          body.debtorFirstName,
          body.debtorLastName,
          body.debtorEmail,
        ]),
      );
      const debt = await client.query<DebtRow>(
        named(DEBT, [newId(), org, debtor.rows[0]!.id, body.externalAccountId, body.originalPrincipal, body.currency]),
      );
      const row = debt.rows[0]!;
      const json = debtJson(row);
      const event = await client.query<{ id: string; type: string }>(
        named(EVENT, [newEventId(), org, `{"debt":${json}}`, requestId]),
      );
      await client.query(named(DELIVERY, [newId(), event.rows[0]!.id, event.rows[0]!.type, requestId, org]));
      const headers = { Location: `/v1/debts/${row.id}`, 'Content-Type': 'application/json; charset=utf-8' };
      const sealed = seal(json, `idempotency:${org}:${key}`);
      await client.query(named(SAVE, [org, key, fingerprint, JSON.stringify(headers), sealed, requestId]));
      await client.query('commit');
      return { json, location: headers.Location };
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
  }

  return async (ctx: Koa.Context, found, requestId): Promise<void> => {
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const fingerprint = createHash('sha256').update(`POST /v1/debts\n${raw}`, 'utf8').digest('hex');
    const key = ctx.get('idempotency-key');
    const body = ctx.request.body as Record<string, string>;
    const { json, location } = await create(found.organizationId, key, fingerprint, requestId, body);
    ctx.status = 201;
    ctx.set('Location', location);
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = json;
  };
}
