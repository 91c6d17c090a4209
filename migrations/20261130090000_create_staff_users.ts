import type { Knex } from 'knex';

/**
 * The client console's people: a staff user belongs to one organisation with one role, and signs in by an
 * emailed magic link. Only the SHA-256 of a link's token is stored; a token is good once, for 15 minutes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table staff_users (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      email text not null check (email = lower(email) and length(email) between 3 and 254),
      role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
      created_at timestamptz not null default now(),
      unique (email)
    );
    create index staff_users_organization_idx on staff_users (organization_id, created_at, id);

    create table staff_sign_in_tokens (
      token_hash text primary key,
      user_id uuid not null references staff_users (id) on delete cascade,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    );
    create index staff_sign_in_tokens_user_idx on staff_sign_in_tokens (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table staff_sign_in_tokens; drop table staff_users;');
}
