import type { Knex } from 'knex';

/**
 * The debts whose `debt-<id>` workflow the lifecycle consumer has still to start. Written in the
 * consumer's batch transaction, deleted once Temporal has the workflow: a worker killed between its commit and the
 * start leaves the row, and the next pass of any lifecycle worker starts it. Before, such a start lived only in the
 * process's memory and was lost with it, and the debt had no workflow until its first trigger or a backfill.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('lifecycle_pending_starts', (t) => {
    t.uuid('debt_id').primary();
    t.uuid('organization_id').notNullable();
    t.text('request_id').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('lifecycle_pending_starts');
}
