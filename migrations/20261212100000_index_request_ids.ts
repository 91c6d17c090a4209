import type { Knex } from 'knex';

/**
 * The console's search finds what a request changed and delivered by its request id (core/staff/console-search.ts):
 * one index probe each in the organisation's events and deliveries, not a scan of the tenant. Only rows a request
 * made carry one. Built concurrently, as both tables may be large.
 */
export const config = { transaction: false };

const INDEXES = [
  ['events_by_request', 'events'],
  ['webhook_deliveries_by_request', 'webhook_deliveries'],
] as const;

export async function up(knex: Knex): Promise<void> {
  for (const [name, table] of INDEXES) {
    // An index left invalid by an interrupted concurrent build is dropped and built again.
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(
      `create index concurrently ${name} on ${table} (organization_id, request_id) where request_id is not null`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}
