import type { Knex } from 'knex';

/**
 * A receiver's queue counts, ahead of a delivery that is not bulk work, only the retries that are not either
 * (core/webhooks/receiver-queue.ts, core/events/bulk-work.ts). With `bulk` in the retries' index, that count stays
 * within the index, as it was before bulk existed: a receiver down with thousands of retries due would otherwise make
 * each busy answer read every one of them from the table. Built concurrently beside the old index, then swapped.
 */
export const config = { transaction: false };

const NAME = 'webhook_deliveries_retries_due';
const ON = `webhook_deliveries (organization_id, next_attempt_at)`;
const WHERE = `where status = 'Pending' and attempt_count > 0`;

async function rebuild(knex: Knex, include: string): Promise<void> {
  // An index left invalid by an interrupted concurrent build is dropped and built again.
  await knex.raw(`drop index concurrently if exists ${NAME}_next`);
  await knex.raw(`create index concurrently ${NAME}_next on ${ON} ${include} ${WHERE}`);
  await knex.raw(`drop index concurrently if exists ${NAME}`);
  await knex.raw(`alter index ${NAME}_next rename to ${NAME}`);
}

export async function up(knex: Knex): Promise<void> {
  await rebuild(knex, 'include (bulk)');
}

export async function down(knex: Knex): Promise<void> {
  await rebuild(knex, '');
}
