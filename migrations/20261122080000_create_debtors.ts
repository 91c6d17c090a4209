import type { Knex } from 'knex';

/**
 * Debtors of an organisation (DECISIONS.md §2). `referenceId` is the client's own reference, unique per
 * organisation, so an inline debtor on `POST /v1/debts` can reuse it. `(organization_id, id)` is unique so that
 * debts can reference a debtor together with its organisation: the database itself refuses a cross-tenant link.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('debtors', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('reference_id').notNullable();
    t.text('first_name').notNullable();
    t.text('last_name').notNullable();
    t.text('email').nullable();
    t.text('phone').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['organization_id', 'id']);
    t.unique(['organization_id', 'reference_id']);
    t.check('email is not null or phone is not null', [], 'debtors_contact_present');
  });
  // The list order, and the email filter (case-insensitive, as email addresses are in practice).
  await knex.raw('create index debtors_list on debtors (organization_id, created_at desc, id desc)');
  await knex.raw('create index debtors_email on debtors (organization_id, lower(email))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('debtors');
}
