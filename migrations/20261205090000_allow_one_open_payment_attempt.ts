import type { Knex } from 'knex';

/**
 * At most one open payment attempt per debt (issue 37: two tabs paying the full balance made two PaymentIntents and
 * kept the second payment). Open = `processing`: a payment the processor has not yet reported. A partial unique index
 * enforces it, so two concurrent pay forms cannot both start one; the second is shown the one in flight.
 * Open duplicates started before the rule stay as they are (their PaymentIntents may still be confirmed): all but the
 * newest of each debt are marked `opened_beside_another` and left out of the index, so the migration never changes an
 * attempt's status or fails on old rows. Built concurrently: the table may be large.
 */
export const config = { transaction: false };

const INDEX = 'payment_attempts_one_open_per_debt';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table payment_attempts add column if not exists opened_beside_another boolean not null default false`,
  );
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw(
    `update payment_attempts set opened_beside_another = true
      where id in (select id from (
        select id, row_number() over (partition by debt_id order by created_at desc, id desc) as newest
          from payment_attempts where status = 'processing') ranked
        where newest > 1)`,
  );
  await knex.raw(
    `create unique index concurrently ${INDEX} on payment_attempts (debt_id)
      where status = 'processing' and not opened_beside_another`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw(`alter table payment_attempts drop column if exists opened_beside_another`);
}
