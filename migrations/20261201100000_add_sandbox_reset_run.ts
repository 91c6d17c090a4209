import type { Knex } from 'knex';

/**
 * The sandbox reset that last committed for a tenant: the run id of its `sandbox-reset-<orgId>` workflow (each run
 * resets at most once, then continues as new). A retried attempt of the same reset finds its own id and does not
 * wipe again what its first attempt seeded, and the tenant may have started using since.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.text('sandbox_reset_run_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('sandbox_reset_run_id');
  });
}
