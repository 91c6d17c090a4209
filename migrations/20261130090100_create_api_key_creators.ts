import type { Knex } from 'knex';

/**
 * Who minted a key in the console (the API keys page's "created by"). Beside `api_keys` rather than in it: keys
 * minted by the operator CLI have no creator row. The email is kept so the page still names a removed user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table api_key_creators (
      api_key_id uuid primary key references api_keys (id) on delete cascade,
      staff_user_id uuid references staff_users (id) on delete set null,
      email text not null
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table api_key_creators');
}
