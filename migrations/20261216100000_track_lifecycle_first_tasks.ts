import type { Knex } from 'knex';

/**
 * Admission by progress for debt lifecycles (core/lifecycle/lifecycle-consumer.ts): a recorded start is no longer
 * deleted when Temporal accepts the workflow but marked `started_at`, and deleted by the workflow's first task (its
 * state's load). The starter counts each organisation's starts between claim and first task before it claims more,
 * from a partial index that holds only those; the owed starts get a partial index of their own (started rows are no
 * longer owed). Built concurrently; the column is nullable, so adding it rewrites nothing.
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  ['lifecycle_pending_starts_owed', 'lifecycle_pending_starts (organization_id, created_at) where started_at is null'],
  [
    'lifecycle_pending_starts_in_flight',
    'lifecycle_pending_starts (organization_id, started_at) where started_at is not null or claimed_until is not null',
  ],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table lifecycle_pending_starts add column if not exists started_at timestamptz(3)');
  for (const [name, definition] of INDEXES) {
    // An index left invalid by an interrupted concurrent build is dropped and built again.
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(`create index concurrently ${name} on ${definition}`);
  }
  await knex.raw('drop index concurrently if exists lifecycle_pending_starts_by_organization');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'create index concurrently if not exists lifecycle_pending_starts_by_organization on lifecycle_pending_starts (organization_id, created_at)',
  );
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
  // Started rows would look owed again to the code before this migration: their workflows exist, so drop them.
  await knex.raw('delete from lifecycle_pending_starts where started_at is not null');
  await knex.raw('alter table lifecycle_pending_starts drop column if exists started_at');
}
