import type { Knex } from 'knex';

/**
 * The debt lifecycle (DECISIONS.md §3) writes a debt only through its workflow's activity:
 * - `debts.lifecycle_version` counts the changes applied; the activity passes the version it expects, so a retried
 *   activity whose first try committed is recognised and not applied twice.
 * - `debts.plan_schedule` holds the instalments of the current (or last) plan as `Instalment[]` (amounts as decimal
 *   strings): the `plan_*` columns are its summary as the API shows it.
 * - A payment reported twice with the same processor reference and outcome is one transaction.
 * - `lifecycle_inputs` keeps free text a trigger carries (a dispute's reason) out of workflow history: the workflow
 *   carries only the row's id. Rows go with their debt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('debts', (t) => {
    t.integer('lifecycle_version').notNullable().defaultTo(0);
    t.json('plan_schedule').nullable();
  });
  await knex.raw(
    `create unique index transactions_payment_reference on transactions (debt_id, processor_reference, status)
       where processor_reference is not null and type = 'Payment'`,
  );
  await knex.schema.createTable('lifecycle_inputs', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('debt_id').notNullable();
    t.text('kind').notNullable();
    t.json('payload').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    // The input's debt is of the same organisation, enforced by the database.
    t.foreign(['organization_id', 'debt_id'])
      .references(['organization_id', 'id'])
      .inTable('debts')
      .onDelete('CASCADE');
    t.index(['organization_id', 'debt_id'], 'lifecycle_inputs_by_debt');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('lifecycle_inputs');
  await knex.raw('drop index transactions_payment_reference');
  await knex.schema.alterTable('debts', (t) => {
    t.dropColumn('plan_schedule');
    t.dropColumn('lifecycle_version');
  });
}
