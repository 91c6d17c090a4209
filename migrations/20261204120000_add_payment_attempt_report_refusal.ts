import type { Knex } from 'knex';

/**
 * A processor's outcome the debt's workflow refused to record: a Stripe payment that succeeded
 * for a debt closed meanwhile, or a test-mode payment failing after its debt was settled. The attempt keeps the
 * processor's outcome as its status, and `report_refusal` says why the debt did not take it (the lifecycle's error
 * code and detail: ids, states and amounts, never debtor data), so an operator can find and refund it instead of a
 * webhook or a timer asking again for ever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table payment_attempts add column report_refusal text;
    create index payment_attempts_refused on payment_attempts (organization_id, created_at desc)
      where report_refusal is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payment_attempts_refused; alter table payment_attempts drop column report_refusal');
}
