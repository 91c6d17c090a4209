import type { Knex } from 'knex';

const STATUSES = [
  'PendingAssignment',
  'Accepted',
  'Active',
  'InArrears',
  'Disputed',
  'Settled',
  'WrittenOff',
  'Closed',
];
const PLAN_COLUMNS = [
  'plan_status',
  'plan_instalment_amount',
  'plan_frequency',
  'plan_instalment_count',
  'plan_instalments_paid',
];

/**
 * Debts (DECISIONS.md §2, §3). Money is NUMERIC(19,4): exact, and roomy for the 15 significant digits the API
 * accepts in currencies of up to 3 minor units. The instalment plan lives in nullable `plan_*` columns rather than
 * jsonb so that its amount is NUMERIC like all money and its fields are typed and checked; a debt has at most one
 * current plan, and the columns are all set or all null (`plan_next_due_date` may be null once a plan ends).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('debts', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('debtor_id').notNullable();
    t.text('external_account_id').notNullable();
    t.text('client_reference').nullable();
    t.decimal('original_principal', 19, 4).notNullable();
    t.decimal('outstanding_principal', 19, 4).notNullable();
    t.text('currency').notNullable();
    t.text('status').notNullable().checkIn(STATUSES, 'debts_status_known');
    t.text('dispute_reason').nullable();
    t.text('plan_status').nullable().checkIn(['Active', 'Completed', 'Cancelled', 'Defaulted'], 'debts_plan_status');
    t.decimal('plan_instalment_amount', 19, 4).nullable();
    t.text('plan_frequency').nullable().checkIn(['Weekly', 'Fortnightly', 'Monthly'], 'debts_plan_frequency');
    t.integer('plan_instalment_count').nullable();
    t.integer('plan_instalments_paid').nullable();
    t.date('plan_next_due_date').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['organization_id', 'id']);
    // A debt's debtor belongs to the same organisation, enforced by the database.
    t.foreign(['organization_id', 'debtor_id']).references(['organization_id', 'id']).inTable('debtors');
    t.check('original_principal > 0 and outstanding_principal >= 0', [], 'debts_principal_sane');
    // The plan's columns are all set or all null.
    t.check(`num_nulls(${PLAN_COLUMNS.join(', ')}) in (0, ${PLAN_COLUMNS.length})`, [], 'debts_plan_whole');
    t.check('plan_instalment_amount > 0 and plan_instalments_paid >= 0', [], 'debts_plan_sane');
  });
  // The list order of GET /v1/debts, and its two filters, each ending in that order so a page is an index range.
  await knex.raw('create index debts_list on debts (organization_id, created_at desc, id desc)');
  await knex.raw('create index debts_by_status on debts (organization_id, status, created_at desc, id desc)');
  await knex.raw('create index debts_by_debtor on debts (organization_id, debtor_id, created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('debts');
}
