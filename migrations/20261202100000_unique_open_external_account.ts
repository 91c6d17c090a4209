import type { Knex } from 'knex';

/**
 * One open debt per `externalAccountId`: a second open debt with the same account reference is
 * refused (`409 external_account_id_in_use`), enforced by a partial unique index so that two concurrent requests
 * cannot both pass. Open = not `Settled`, `WrittenOff` or `Closed` (spelled out here: a migration must not change
 * with the code). Open duplicates raised before the rule stay as they are: all but the newest of each are marked
 * `external_account_shared` and left out of the index (docs/debts.md says so), so the migration never rewrites a
 * client's data or fails on it. Built concurrently: the table may be large.
 */
export const config = { transaction: false };

const OPEN = `status not in ('Settled', 'WrittenOff', 'Closed')`;
const INDEX = 'debts_one_open_per_external_account';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table debts add column if not exists external_account_shared boolean not null default false`);
  // A concurrent build that failed (a duplicate raised by an older API meanwhile) leaves an invalid index behind.
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw(
    `update debts set external_account_shared = true
      where id in (select id from (
        select id, row_number() over (partition by organization_id, external_account_id
                                      order by created_at desc, id desc) as newest
          from debts where ${OPEN}) ranked
        where newest > 1)`,
  );
  await knex.raw(
    `create unique index concurrently ${INDEX} on debts (organization_id, external_account_id)
      where ${OPEN} and not external_account_shared`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw(`alter table debts drop column if exists external_account_shared`);
}
