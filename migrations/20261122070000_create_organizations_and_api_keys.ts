import type { Knex } from 'knex';

// Timestamps are timestamptz(3): millisecond precision, so a JS Date round-trips exactly (keyset cursors rely on it).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('mode').notNullable().checkIn(['production', 'sandbox']);
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('mode').notNullable().checkIn(['production', 'sandbox']);
    t.text('name').notNullable();
    // First 16 characters, for display (e.g. "ak_live_AbCdEfGh"); the secret itself is never stored.
    t.text('prefix').notNullable();
    // SHA-256 of the whole key, hex. Keys carry ≥ 190 bits of randomness, so a fast hash is enough.
    t.text('secret_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.boolean('read_only').notNullable().defaultTo(false);
    t.integer('hourly_limit').nullable();
    t.integer('daily_limit').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('last_used_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('revoked_at', { useTz: true, precision: 3 }).nullable();
    t.index(['organization_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('organizations');
}
