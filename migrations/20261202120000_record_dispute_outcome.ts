import type { Knex } from 'knex';

/**
 * A resolved dispute's outcome on the debt: `Upheld` (the debt was written off) or `Rejected` (the
 * debt went back to `PendingAssignment`), and when. Null while no dispute was resolved. Disputes resolved before
 * this column existed are not guessed at: their outcome stays null (docs/lifecycle.md says so).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table debts
    add column if not exists dispute_outcome text check (dispute_outcome in ('Upheld', 'Rejected')),
    add column if not exists dispute_resolved_at timestamptz(3)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table debts drop column if exists dispute_outcome, drop column if exists dispute_resolved_at');
}
