import type { Knex } from 'knex';

/**
 * The console's debt page draws a timeline from the debt's events (the organisation's events whose `data.debt.id` is
 * the debt), in outbox order: one index range scan at any tenant size, instead of reading every event of the
 * organisation. Built concurrently, as `events` may be large.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create index concurrently if not exists events_by_debt on events (organization_id, (data -> 'debt' ->> 'id'), txid, seq)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index concurrently if exists events_by_debt');
}
