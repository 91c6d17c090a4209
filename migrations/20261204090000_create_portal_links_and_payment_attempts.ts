import type { Knex } from 'knex';

/**
 * The debtor portal's links and the payment processor's attempts.
 *
 * `portal_links`: each debt's link into the portal. The token (32 random bytes) is stored only as its SHA-256; a
 * link is good until revoked, and issuing a new one for the debt revokes the previous one, so at most one is live.
 *
 * `payment_attempts`: each payment a debtor starts through a processor (test mode or Stripe). The processor's own
 * reference is unique per processor: a webhook delivered twice finds the attempt it already settled. The portal's
 * idempotency key is unique per debt: a form submitted twice starts one payment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table portal_links (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null references debts (id) on delete cascade,
      token_hash text not null unique,
      created_at timestamptz(3) not null default now(),
      revoked_at timestamptz(3)
    );
    create unique index portal_links_one_live_per_debt on portal_links (debt_id) where revoked_at is null;

    create table payment_attempts (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null references debts (id) on delete cascade,
      processor text not null check (processor in ('test', 'stripe')),
      processor_reference text not null,
      idempotency_key text not null,
      amount numeric(19, 4) not null check (amount > 0),
      currency text not null,
      status text not null check (status in ('processing', 'succeeded', 'declined', 'failed')),
      decline_reason text,
      created_at timestamptz(3) not null default now(),
      settled_at timestamptz(3),
      unique (processor, processor_reference),
      unique (debt_id, idempotency_key)
    );
    create index payment_attempts_by_debt on payment_attempts (organization_id, debt_id, created_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table payment_attempts; drop table portal_links');
}
