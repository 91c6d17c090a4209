import type { Knex } from 'knex';

/**
 * Bulk work last within its organisation (docs/placements.md, "Fair to everyone else"): a placement's debts raise
 * events, deliveries, lifecycle starts and portal mails marked `bulk`, and each organisation's owed work is taken
 * non-bulk first, then oldest first. A debt a tenant raises through the API while its 100,000-row placement is still
 * being worked off is started and mailed within a turn, not after the 100,000.
 *
 * The three queues' partial indexes (what the fair starters and the mail dispatcher walk, one organisation at a time)
 * gain `bulk` between the organisation and the age, so each organisation's next rows in that order are one index range.
 * The columns have a constant default, so adding them rewrites nothing; the indexes are built concurrently, as
 * `webhook_deliveries` and `debtor_notifications` may be large.
 */
export const config = { transaction: false };

const TABLES = ['events', 'webhook_deliveries', 'lifecycle_pending_starts', 'debtor_notifications'] as const;

const INDEXES: [name: string, table: string, predicate: string][] = [
  ['webhook_deliveries_owed_starts', 'webhook_deliveries', `status = 'Pending' and workflow_started_at is null`],
  ['lifecycle_pending_starts_owed', 'lifecycle_pending_starts', 'started_at is null'],
  ['debtor_notifications_unhandled_by_org', 'debtor_notifications', `status in ('pending', 'sending')`],
];

async function buildIndexes(knex: Knex, columns: string): Promise<void> {
  for (const [name, table, predicate] of INDEXES) {
    // Built beside the old one under a temporary name, then swapped: the queue is never without its index.
    await knex.raw(`drop index concurrently if exists ${name}_next`);
    await knex.raw(`create index concurrently ${name}_next on ${table} (${columns}) where ${predicate}`);
    await knex.raw(`drop index concurrently if exists ${name}`);
    await knex.raw(`alter index ${name}_next rename to ${name}`);
  }
}

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`alter table ${table} add column if not exists bulk boolean not null default false`);
  }
  await buildIndexes(knex, 'organization_id, bulk, created_at');
}

export async function down(knex: Knex): Promise<void> {
  await buildIndexes(knex, 'organization_id, created_at');
  for (const table of TABLES) await knex.raw(`alter table ${table} drop column if exists bulk`);
}
