import type { Knex } from 'knex';

/**
 * Indexes for the filtered lists and for retention (core/retention/purge.ts):
 * - `GET /v1/events?type=` and `GET /v1/webhooks/deliveries?status=` read an index range in list order;
 * - the purge finds rows older than the retention period from the oldest end, without a full scan: events by age,
 *   and final deliveries by age (a `Pending` delivery is never purged, so it is not in that index).
 * Expired idempotency records already have theirs (`idempotency_keys.expires_at`).
 *
 * Built CONCURRENTLY, outside a transaction, so a large events table keeps taking writes while they build; an index
 * left invalid by an interrupted build is dropped and built again.
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  ['events_by_type', 'events (organization_id, type, created_at desc, id desc)'],
  ['webhook_deliveries_by_status', 'webhook_deliveries (organization_id, status, created_at desc, id desc)'],
  ['events_by_age', 'events (created_at)'],
  ['webhook_deliveries_final_by_age', `webhook_deliveries (created_at) where status <> 'Pending'`],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) {
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(`create index concurrently ${name} on ${definition}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}
