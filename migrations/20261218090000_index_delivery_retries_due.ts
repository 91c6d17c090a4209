import type { Knex } from 'knex';

/**
 * A receiver's queue, shared by every webhooks worker process (core/webhooks/receiver-queue.ts): a busy attempt's wait
 * is the number of the organisation's deliveries waiting for an attempt ahead of it. First attempts are counted by
 * `webhook_deliveries_first_attempts_in_flight` (a few dozen per organisation at most); this partial index holds the
 * retries (Pending, tried at least once) by when each is due, so the retries due before a waiter are one index range
 * of the organisation's. Built concurrently, as `webhook_deliveries` may be large.
 */
export const config = { transaction: false };

const NAME = 'webhook_deliveries_retries_due';

export async function up(knex: Knex): Promise<void> {
  // An index left invalid by an interrupted concurrent build is dropped and built again.
  await knex.raw(`drop index concurrently if exists ${NAME}`);
  await knex.raw(
    `create index concurrently ${NAME} on webhook_deliveries (organization_id, next_attempt_at)
      where status = 'Pending' and attempt_count > 0`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${NAME}`);
}
