import type { Knex } from 'knex';

/**
 * Debtor notifications: one row per email a debtor is sent, or would have been.
 *
 * `debtor_notifications`: unique by (source_id, kind, instalment index), so an outbox event handed over twice, or a
 * reminder activity retried, makes one row and at most one email. `source_id` is what caused the notification: the
 * outbox event (`evt_…`), for an instalment reminder the `plan.activated` event of its plan, for a link sent from the
 * console a fresh id. `status`: `pending` (recorded, not yet handled), `sending` (claimed by a sender at `claimed_at`),
 * `sent`, `suppressed` (the debtor opted out, or has no email: `reason` says which), `failed` (the relay refused it:
 * `reason`), or `recorded` (the sandbox, which sends nothing: `subject` and `body` keep the message it would have
 * sent). Production keeps no message body. `opt_out_token_hash` is the SHA-256 of the opt-out link's token the message
 * carried.
 *
 * `notification_reminder_starts`: a plan whose reminder workflow is still to start (removed once Temporal has it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table debtor_notifications (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null,
      kind text not null check (kind in
        ('portal_link', 'plan_schedule', 'instalment_reminder', 'payment_receipt', 'plan_defaulted')),
      source_id text not null,
      instalment_index integer,
      status text not null default 'pending' check (status in
        ('pending', 'sending', 'sent', 'suppressed', 'failed', 'recorded')),
      reason text,
      subject text,
      body text,
      opt_out_token_hash text unique,
      attempts integer not null default 0,
      claimed_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      handled_at timestamptz(3),
      foreign key (organization_id, debt_id) references debts (organization_id, id) on delete cascade
    );
    create unique index debtor_notifications_once
      on debtor_notifications (source_id, kind, coalesce(instalment_index, -1));
    create index debtor_notifications_by_org on debtor_notifications (organization_id, created_at desc, id desc);
    create index debtor_notifications_by_debt on debtor_notifications (debt_id);
    create index debtor_notifications_unhandled on debtor_notifications (created_at) where status in ('pending', 'sending');

    create table notification_reminder_starts (
      plan_event_id text primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      debt_id uuid not null references debts (id) on delete cascade,
      created_at timestamptz(3) not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table notification_reminder_starts; drop table debtor_notifications');
}
