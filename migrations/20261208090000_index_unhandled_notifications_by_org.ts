import type { Knex } from 'knex';

/**
 * The mail dispatcher (core/notifications/mail-dispatcher.ts) takes unhandled debtor notifications round-robin across
 * organisations: it walks the organisations that have some (a skip scan, one index probe per organisation) and reads
 * each one's oldest. Both read this index in its order, and it holds unhandled rows only, so a tenant's ten thousand
 * sent notifications cost nothing and ten thousand pending ones cost one probe to step over. It replaces the index by
 * `created_at` alone, which served the oldest-first sweep this dispatcher replaces. Built concurrently, as
 * `debtor_notifications` may be large.
 */
export const config = { transaction: false };

const UNHANDLED = `where status in ('pending', 'sending')`;

export async function up(knex: Knex): Promise<void> {
  // An index left invalid by an interrupted concurrent build is dropped and built again.
  await knex.raw('drop index concurrently if exists debtor_notifications_unhandled_by_org');
  await knex.raw(
    `create index concurrently debtor_notifications_unhandled_by_org
       on debtor_notifications (organization_id, created_at) ${UNHANDLED}`,
  );
  await knex.raw('drop index concurrently if exists debtor_notifications_unhandled');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `create index concurrently if not exists debtor_notifications_unhandled on debtor_notifications (created_at) ${UNHANDLED}`,
  );
  await knex.raw('drop index concurrently if exists debtor_notifications_unhandled_by_org');
}
