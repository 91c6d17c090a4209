import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('key').notNullable();
    // SHA-256 over method, path and body: the same key with another request is a conflict.
    t.text('fingerprint').notNullable();
    t.integer('response_status').notNullable();
    t.jsonb('response_headers').notNullable();
    t.text('response_body').notNullable();
    t.text('request_id').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
    t.primary(['organization_id', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
