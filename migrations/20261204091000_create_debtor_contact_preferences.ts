import type { Knex } from 'knex';

/**
 * A debtor's contact preferences: the email opt-out that every debtor notification honours and carries
 * (US Regulation F requires one in electronic messages). Set from the debtor portal or the opt-out link; kept with the
 * debtor (deleted with it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table debtor_contact_preferences (
      debtor_id uuid primary key references debtors (id) on delete cascade,
      organization_id uuid not null references organizations (id) on delete cascade,
      email_opted_out_at timestamptz(3),
      updated_at timestamptz(3) not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table debtor_contact_preferences');
}
