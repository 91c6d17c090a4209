import type { Knex } from 'knex';

/**
 * Owed workflow starts are started by a fair loop in each worker process (core/temporal/fair-starter.ts), which claims
 * each organisation's oldest owed rows for a lease. Per table: the lease column, and a partial index on
 * (organization_id, created_at) over the owed rows, which the claim's skip scan walks one organisation at a time.
 * The indexes are built concurrently, as `webhook_deliveries` may be large; the columns are nullable, so adding them
 * rewrites nothing.
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  [
    'webhook_deliveries_owed_starts',
    `webhook_deliveries (organization_id, created_at) where status = 'Pending' and workflow_started_at is null`,
  ],
  ['lifecycle_pending_starts_by_organization', 'lifecycle_pending_starts (organization_id, created_at)'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_deliveries add column if not exists start_claimed_until timestamptz(3)');
  await knex.raw('alter table lifecycle_pending_starts add column if not exists claimed_until timestamptz(3)');
  for (const [name, definition] of INDEXES) {
    // An index left invalid by an interrupted concurrent build is dropped and built again.
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(`create index concurrently ${name} on ${definition}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
  await knex.raw('alter table lifecycle_pending_starts drop column if exists claimed_until');
  await knex.raw('alter table webhook_deliveries drop column if exists start_claimed_until');
}
