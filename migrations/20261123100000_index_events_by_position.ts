import type { Knex } from 'knex';

/** GET /v1/events pages an organisation's events by outbox position (core/events/event-list.ts). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index events_organization_position on events (organization_id, txid, seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index events_organization_position');
}
