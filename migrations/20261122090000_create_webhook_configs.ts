import type { Knex } from 'knex';

/**
 * One webhook receiver per organisation (spec §2). The signing secret is stored AES-256-GCM encrypted
 * (iv, tag, ciphertext; key from WEBHOOK_SECRET_KEY); only its 12-character prefix is kept in clear, for display.
 * A cleared configuration keeps its row with url and secret null, so `enabled` is false.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_configs', (t) => {
    t.uuid('organization_id').primary().references('organizations.id').onDelete('CASCADE');
    t.text('url').nullable();
    t.binary('secret_iv').nullable();
    t.binary('secret_tag').nullable();
    t.binary('secret_ciphertext').nullable();
    t.text('secret_prefix').nullable();
    t.boolean('enabled').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
  });
  // Enabled means "URL and secret both set" (spec §2): the database refuses any other combination.
  await knex.raw(`
    alter table webhook_configs add constraint webhook_configs_enabled_complete check (
      enabled = (url is not null and secret_ciphertext is not null and secret_iv is not null
                 and secret_tag is not null and secret_prefix is not null)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_configs');
}
