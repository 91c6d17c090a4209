import type { Knex } from 'knex';

/**
 * Takes an Idempotency-Key's lock and reads its saved response in one round trip. A plpgsql function,
 * because its statements each take a fresh snapshot (it is VOLATILE): the record is read *after* the lock is held, so
 * a response committed by the lock's previous holder is seen. One SQL statement could not do that: its snapshot
 * would predate the lock. The lock's key is the one core/platform/idempotency-store.ts always used.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function claim_idempotency_key(p_organization_id uuid, p_key text)
    returns table (locked boolean, fingerprint text, response_status integer, response_headers jsonb,
                   response_body text, request_id text)
    language plpgsql volatile as $$
    begin
      if not pg_try_advisory_xact_lock(hashtextextended('idempotency:' || p_organization_id || ':' || p_key, 0)) then
        return query select false, null::text, null::integer, null::jsonb, null::text, null::text;
        return;
      end if;
      return query
        select true, k.fingerprint, k.response_status, k.response_headers, k.response_body, k.request_id
          from idempotency_keys k
         where k.organization_id = p_organization_id and k.key = p_key and k.expires_at > now();
      if not found then
        return query select true, null::text, null::integer, null::jsonb, null::text, null::text;
      end if;
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function claim_idempotency_key(uuid, text)');
}
