import type { Knex } from 'knex';

/**
 * Admission by progress (core/temporal/owed-start-claims.ts): the delivery starter counts, per organisation, the
 * deliveries between their claim and their first attempt before it claims more. This partial index holds only those
 * (Pending, never tried, claimed or started), a few dozen per organisation at most, so the count is a short index
 * scan however many deliveries a tenant has owed or done. Built concurrently, as `webhook_deliveries` may be large.
 */
export const config = { transaction: false };

const NAME = 'webhook_deliveries_first_attempts_in_flight';

export async function up(knex: Knex): Promise<void> {
  // An index left invalid by an interrupted concurrent build is dropped and built again.
  await knex.raw(`drop index concurrently if exists ${NAME}`);
  await knex.raw(
    `create index concurrently ${NAME} on webhook_deliveries (organization_id, workflow_started_at)
      where status = 'Pending' and attempt_count = 0 and (workflow_started_at is not null or start_claimed_until is not null)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${NAME}`);
}
