import type { Knex } from 'knex';

/**
 * One branding row per organisation (DECISIONS.md §2), created by its first PATCH. Every field is nullable: null
 * means "not set", and the debtor portal then uses its own default. The checks repeat the API's rules so that no
 * other writer can store what the portal would render wrongly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('branding', (t) => {
    t.uuid('organization_id').primary().references('organizations.id').onDelete('CASCADE');
    t.text('primary_color').nullable();
    t.text('secondary_color').nullable();
    t.text('logo_url').nullable();
    t.text('favicon_url').nullable();
    t.text('brand_tagline').nullable();
    t.text('support_email').nullable();
    t.text('support_phone').nullable();
    t.text('statement_footer').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.check(`primary_color ~ '^#[0-9A-Fa-f]{6}$' and secondary_color ~ '^#[0-9A-Fa-f]{6}$'`, [], 'branding_colors');
    t.check('char_length(brand_tagline) <= 140', [], 'branding_tagline_length');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('branding');
}
