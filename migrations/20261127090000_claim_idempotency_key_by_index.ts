import type { Knex } from 'knex';

/**
 * The claim reads a key's record through the primary key, whatever the statistics say. A plpgsql function plans its
 * statement once per connection and keeps the plan until the table is analysed again; planned while
 * `idempotency_keys` was empty (just purged, a new database), it scanned the whole table or the whole `expires_at`
 * index, and every claim on that connection meanwhile read every record added since: the bench's POST /v1/debts ran
 * at half speed in every other run. So the lookup names only the key's columns (the expiry is checked on the row found, behind `offset 0`,
 * which keeps the planner from pushing it down onto the `expires_at` index), and sequential scans are off inside the
 * function (nothing else in it reads a table).
 */
/** The function with `settings` before its body and `lookup` as its read of the key's unexpired record. */
const claimFunction = (settings: string, lookup: string) => `
  create or replace function claim_idempotency_key(p_organization_id uuid, p_key text)
  returns table (locked boolean, fingerprint text, response_status integer, response_headers jsonb,
                 response_body text, request_id text)
  language plpgsql volatile ${settings}
  as $$
  begin
    if not pg_try_advisory_xact_lock(hashtextextended('idempotency:' || p_organization_id || ':' || p_key, 0)) then
      return query select false, null::text, null::integer, null::jsonb, null::text, null::text;
      return;
    end if;
    return query
      select true, k.fingerprint, k.response_status, k.response_headers, k.response_body, k.request_id
        ${lookup};
    if not found then
      return query select true, null::text, null::integer, null::jsonb, null::text, null::text;
    end if;
  end
  $$`;

const CLAIM_BY_PRIMARY_KEY = claimFunction(
  'set enable_seqscan = off',
  `from (select * from idempotency_keys
               where idempotency_keys.organization_id = p_organization_id and idempotency_keys.key = p_key
              offset 0) k
       where k.expires_at > now()`,
);

/** The function as migration 20261126120000 created it. */
const CLAIM_AS_BEFORE = claimFunction(
  '',
  `from idempotency_keys k
       where k.organization_id = p_organization_id and k.key = p_key and k.expires_at > now()`,
);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_BY_PRIMARY_KEY);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_AS_BEFORE);
}
