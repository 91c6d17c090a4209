import type { Knex } from 'knex';

/**
 * The API request that caused an event, and so its delivery (`req_…`, the response's `X-Request-Id`): null for
 * events no request caused (a plan's default on a timer, rows written before this migration). Nullable columns
 * without a default: adding them rewrites nothing, however large the tables.
 * Not indexed: operators find a request's rows through the logs and Temporal (`RequestId` search attribute), and an
 * index would cost every event insert.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table events add column request_id text');
  await knex.raw('alter table webhook_deliveries add column request_id text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table webhook_deliveries drop column request_id');
  await knex.raw('alter table events drop column request_id');
}
