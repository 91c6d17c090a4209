import type { Knex } from 'knex';

/**
 * Deliveries (one per event for the receiver configured when the relay saw it) and their attempts.
 * The delivery snapshots the URL and the encrypted secret, so a delivery in flight survives a clear (DECISIONS §4).
 * `generation` counts manual retries: each retry is a new workflow run over the same delivery id, whose attempts are
 * numbered on from `attempt_base`.
 * `workflow_started_at` is null until the relay has started the run, so a crash between commit and start loses nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.text('event_type').notNullable();
    t.text('url').notNullable();
    t.binary('secret_iv').notNullable();
    t.binary('secret_tag').notNullable();
    t.binary('secret_ciphertext').notNullable();
    t.text('status').notNullable().defaultTo('Pending').checkIn(['Pending', 'Succeeded', 'Failed']);
    t.integer('generation').notNullable().defaultTo(0);
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.integer('attempt_base').notNullable().defaultTo(0); // attempts made before this generation's run
    t.timestamp('last_attempt_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('next_attempt_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('workflow_started_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['event_id']); // one delivery per event: dispatch twice and the second insert is refused
    t.index(['organization_id', 'created_at', 'id']);
  });
  await knex.raw(
    `create index webhook_deliveries_unstarted on webhook_deliveries (created_at)
       where status = 'Pending' and workflow_started_at is null`,
  );
  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.uuid('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('number').notNullable(); // 1-based across the delivery's runs
    t.text('url').notNullable();
    t.timestamp('started_at', { useTz: true, precision: 3 }).notNullable();
    t.boolean('succeeded').notNullable();
    t.integer('http_status').nullable();
    t.integer('latency_ms').notNullable();
    t.text('error').nullable();
    t.text('response_body').nullable(); // first 1 KiB of the receiver's answer
    t.primary(['delivery_id', 'number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_delivery_attempts');
  await knex.schema.dropTable('webhook_deliveries');
}
