import type { Knex } from 'knex';

/**
 * The delivery reconciler (core/webhooks/reconcile.ts) scales with what is overdue, not with the Pending backlog:
 * - `webhook_deliveries_pending_due`: Pending deliveries by when they are next expected to move (their next attempt,
 *   or before the first their start or enqueueing) and id, so a pass reads only the overdue ones, in the order they
 *   fell due, from where the last pass stopped;
 * - `webhook_reconcile_positions`: where the last pass stopped, per mode (or per mode and organisation, for a pass
 *   narrowed to one), so a pass that spent its time budget is resumed by the next.
 *
 * The index is built CONCURRENTLY, outside a transaction, so a large deliveries table keeps taking writes while it
 * builds; an index left invalid by an interrupted build is dropped and built again.
 */
export const config = { transaction: false };

const INDEX = 'webhook_deliveries_pending_due';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table if not exists webhook_reconcile_positions (
    scope text primary key,
    due_at timestamptz(3) not null,
    delivery_id uuid not null,
    updated_at timestamptz(3) not null default current_timestamp(3)
  )`);
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw(`create index concurrently ${INDEX} on webhook_deliveries
    ((greatest(updated_at, workflow_started_at, next_attempt_at)), id) where status = 'Pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
  await knex.raw('drop table if exists webhook_reconcile_positions');
}
