import type { Knex } from 'knex';

/**
 * Two reads of the client console that walked a tenant's deliveries (measured at 1,000,000 by `npm run bench`,
 * docs/operators/performance.md, "Console pages"), each now one index range in the order it reads:
 * - the Deliveries page filtered by event type read the tenant's newest deliveries until 50 of that type turned up
 *   (5,000 rows for a type of 1 %, all of them when the type is rarer than that);
 * - the Overview's failures of the last 7 days (listed, newest first, and counted) read every `Failed` delivery the
 *   tenant ever had and sorted them by `updated_at`; "retry all failed since …" picks the same rows, oldest first.
 * Built concurrently, as `webhook_deliveries` may be large; the second holds `Failed` rows only.
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  ['webhook_deliveries_by_event_type', 'webhook_deliveries (organization_id, event_type, created_at desc, id desc)'],
  [
    'webhook_deliveries_failed_by_update',
    `webhook_deliveries (organization_id, updated_at desc, id desc) where status = 'Failed'`,
  ],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) {
    // An index left invalid by an interrupted concurrent build is dropped and built again.
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(`create index concurrently ${name} on ${definition}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}
