import type { Knex } from 'knex';

/**
 * An Idempotency-Key on a request that drives a debt's workflow is recorded as pending
 * before the workflow is asked: the row holds the fingerprint and the first request's id, which is the Temporal
 * update id every retry with the key reuses, so a retry after a 5xx gets the first update's result instead of making
 * a second change. Such a row has no response yet: the response columns become nullable. The claim function already
 * returns them as they are; its caller reads a row with a fingerprint and no status as pending.
 */
const RESPONSE_COLUMNS = ['response_status', 'response_headers', 'response_body'];

export async function up(knex: Knex): Promise<void> {
  for (const column of RESPONSE_COLUMNS) {
    await knex.raw('alter table idempotency_keys alter column ?? drop not null', [column]);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('idempotency_keys').whereNull('response_status').delete();
  for (const column of RESPONSE_COLUMNS) {
    await knex.raw('alter table idempotency_keys alter column ?? set not null', [column]);
  }
}
