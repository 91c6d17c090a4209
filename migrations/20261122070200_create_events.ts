import type { Knex } from 'knex';

/**
 * The outbox: every event is written in the same transaction as the change that caused it (DECISIONS.md §4).
 * `dispatched_at` is set by the relay once the event's deliveries exist; undispatched events are its work queue.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary(); // evt_<uuid v7 hex>
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('dispatched_at', { useTz: true, precision: 3 }).nullable();
    t.index(['organization_id', 'created_at', 'id']);
  });
  await knex.raw('create index events_undispatched on events (created_at, id) where dispatched_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
