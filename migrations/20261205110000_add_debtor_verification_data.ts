import type { Knex } from 'knex';

/**
 * The debtor's verification data (issue 37, item 1): a date of birth and a postcode the client may supply, which the
 * portal asks for as its second factor because no email of ours carries them. Both optional, so adding them is a
 * catalogue change only (no default, no rewrite of the table). The API validates them; they are never sent back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'alter table debtors add column if not exists date_of_birth date, add column if not exists postcode text',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table debtors drop column if exists date_of_birth, drop column if exists postcode');
}
