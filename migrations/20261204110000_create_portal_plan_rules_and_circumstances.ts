import type { Knex } from 'knex';

/**
 * The debtor portal's own data.
 *
 * `portal_plan_rules`: the bounds an organisation sets on the plans its debtors may agree in the portal (instalment
 * count, frequencies, minimum instalment, how far ahead the first due date may be). No row means the documented
 * defaults (docs/portal.md); a row holds every rule, so the console's page writes them all at once.
 *
 * `debtor_circumstances`: what a debtor tells the creditor about their circumstances, kept for the creditor's
 * console and never passed to a workflow. Deleted with the debt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table portal_plan_rules (
      organization_id uuid primary key references organizations (id) on delete cascade,
      max_instalments integer not null check (max_instalments between 1 and 520),
      frequencies text[] not null check (
        cardinality(frequencies) > 0 and frequencies <@ array['Weekly', 'Fortnightly', 'Monthly']
      ),
      min_instalment_amount numeric(19, 4) not null check (min_instalment_amount >= 0),
      first_due_within_days integer not null check (first_due_within_days between 0 and 366),
      updated_at timestamptz(3) not null default now()
    );

    create table debtor_circumstances (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null references debts (id) on delete cascade,
      body text not null check (char_length(body) between 1 and 4000),
      created_at timestamptz(3) not null default now()
    );
    create index debtor_circumstances_by_debt on debtor_circumstances (organization_id, debt_id, created_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table debtor_circumstances; drop table portal_plan_rules');
}
