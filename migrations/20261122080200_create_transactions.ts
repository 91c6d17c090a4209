import type { Knex } from 'knex';

/**
 * Money movements on debts (DECISIONS.md §2). `amount` is always positive; `direction` says which way it went.
 * Payments are the `Inbound` + `Succeeded` rows, served by their own partial index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('transactions', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('debt_id').notNullable();
    t.text('direction').notNullable().checkIn(['Inbound', 'Outbound'], 'transactions_direction');
    t.text('status')
      .notNullable()
      .checkIn(['Pending', 'Succeeded', 'Failed', 'Refunded', 'Cancelled'], 'transactions_status');
    t.text('type').notNullable().checkIn(['Payment', 'Refund', 'Remittance', 'Fee'], 'transactions_type');
    t.decimal('amount', 19, 4).notNullable();
    t.text('currency').notNullable();
    t.text('processor_reference').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.foreign(['organization_id', 'debt_id']).references(['organization_id', 'id']).inTable('debts');
    t.check('amount > 0', [], 'transactions_amount_positive');
  });
  await knex.raw('create index transactions_list on transactions (organization_id, created_at desc, id desc)');
  await knex.raw(
    'create index transactions_by_debt on transactions (organization_id, debt_id, created_at desc, id desc)',
  );
  await knex.raw(
    `create index transactions_payments on transactions (organization_id, created_at desc, id desc)
       where direction = 'Inbound' and status = 'Succeeded'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('transactions');
}
