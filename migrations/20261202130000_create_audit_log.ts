import type { Knex } from 'knex';

/**
 * The console's audit log: who did what to the organisation's keys, webhook, branding, deliveries, debts
 * and team. Kept with the organisation (deleted with it), never holding a secret: `details` names what changed, not
 * the values of secrets. The actor's email is copied so the entry outlives the user's removal.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table audit_log (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      mode text not null check (mode in ('production', 'sandbox')),
      actor_user_id uuid references staff_users (id) on delete set null,
      actor_email text not null,
      action text not null,
      target text,
      details json not null default '{}',
      created_at timestamptz(3) not null default now()
    );
    create index audit_log_by_organization on audit_log (organization_id, created_at desc, id desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table audit_log');
}
