import type { Knex } from 'knex';

/**
 * `webhook_deliveries_unstarted` (the owed deliveries by age alone) served the first delivery consumer, which started
 * them oldest first across every organisation. The fair starter (core/temporal/owed-start-claims.ts) walks the owed
 * deliveries one organisation at a time by `webhook_deliveries_owed_starts`, and no query reads them by age alone any
 * more. Left in place it was worse than unused: with statistics made before a burst (nothing owed), the planner took it
 * for an empty index and answered the claim's per-organisation steps by walking and sorting every owed delivery
 * (test/integration/owed-start-claim-plan.test.ts); and every delivery's insert, and every claim of it, wrote an entry
 * in it.
 * Dropped concurrently (the table may be large and busy); `down` builds it again the same way.
 */
export const config = { transaction: false };

const NAME = 'webhook_deliveries_unstarted';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${NAME}`);
}

export async function down(knex: Knex): Promise<void> {
  // An index left invalid by an interrupted concurrent build is dropped and built again.
  await knex.raw(`drop index concurrently if exists ${NAME}`);
  await knex.raw(
    `create index concurrently ${NAME} on webhook_deliveries (created_at)
       where status = 'Pending' and workflow_started_at is null`,
  );
}
