import type { Knex } from 'knex';

/**
 * `json`, not `jsonb`, for event payloads: jsonb reorders keys, so a webhook's `data.debt` would list its fields in
 * another order than the API returned them. json keeps the text as written; nothing queries inside it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table events alter column data type json using data::json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table events alter column data type jsonb using data::jsonb');
}
