import type { Knex } from 'knex';

/**
 * What `GET /v1/sandbox/reset` reads instead of asking the tenant's reset workflow, so a slow
 * Temporal never slows the API: when the tenant last asked for a reset (`POST /v1/sandbox/reset`, written before the
 * workflow is signalled) and when a reset last committed (written in the reset's own transaction). A request later
 * than the last reset is one still under way.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.timestamp('sandbox_reset_requested_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('sandbox_reset_at', { useTz: true, precision: 3 }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('sandbox_reset_requested_at');
    t.dropColumn('sandbox_reset_at');
  });
}
