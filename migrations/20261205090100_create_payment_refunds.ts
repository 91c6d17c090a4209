import type { Knex } from 'knex';

/**
 * Refunds of payments the debt's workflow refused (issue 37): a processor took the money, but the debt was settled,
 * closed, or owed less by then, so the payment is returned in full through the processor. One row per refused
 * attempt (`attempt_id` unique): it is written `pending` before the processor is asked, under an idempotency key made
 * of the attempt's id, and marked `succeeded` with the processor's refund id after, so a crash between the two asks
 * the processor again with the same key (one refund) and never loses the record.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table payment_refunds (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null references debts (id) on delete cascade,
      attempt_id uuid not null unique references payment_attempts (id) on delete cascade,
      processor text not null check (processor in ('test', 'stripe')),
      payment_reference text not null,
      amount numeric(19, 4) not null check (amount > 0),
      currency text not null,
      reason text not null,
      status text not null check (status in ('pending', 'succeeded')),
      processor_reference text,
      created_at timestamptz(3) not null default now(),
      refunded_at timestamptz(3)
    );
    create index payment_refunds_by_debt on payment_refunds (organization_id, debt_id, created_at desc);
    create index payment_refunds_pending on payment_refunds (created_at) where status = 'pending';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table payment_refunds');
}
