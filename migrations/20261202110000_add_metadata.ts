import type { Knex } from 'knex';

/**
 * `metadata` on debts and debtors: `json`, so the text JSON.stringify wrote is kept byte for byte
 * (the lists PostgreSQL writes send it as it is, like event data); an object, `{}` when nothing is set. The filter
 * `metadata[key]=value` is a jsonb containment, answered by a GIN index on the jsonb form. Adding a column with a
 * constant default rewrites nothing; the indexes are built concurrently, as the tables may be large.
 */
export const config = { transaction: false };

const TABLES = ['debts', 'debtors'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`alter table ${table} add column if not exists metadata json not null default '{}'`);
    await knex.raw(`alter table ${table} drop constraint if exists ${table}_metadata_is_object`);
    await knex.raw(
      `alter table ${table} add constraint ${table}_metadata_is_object check (json_typeof(metadata) = 'object')`,
    );
    await knex.raw(
      `create index concurrently if not exists ${table}_by_metadata on ${table} using gin ((metadata::jsonb) jsonb_path_ops)`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`drop index concurrently if exists ${table}_by_metadata`);
    await knex.raw(`alter table ${table} drop column if exists metadata`);
  }
}
