import type { Knex } from 'knex';

/**
 * Bounds on the application role's sessions in this database (docs/operators/operations.md, "The outbox horizon"):
 * - `idle_in_transaction_session_timeout`: a session idle inside a transaction (a process hung or stopped mid-
 *   transaction, a transaction held across a slow call) is cut off. An open transaction anywhere on the server holds
 *   the outbox horizon back for every consumer of every database on it (core/events/cursor.ts), so this bounds how
 *   long one can stall them. No code path idles in a transaction for more than a few seconds.
 * - `statement_timeout`: a runaway statement is cancelled. The longest legitimate statements are the retention
 *   purge's and the reseal's batches, a sandbox tenant's wipe and the reconciler's pages: seconds at most. Migrations
 *   and the bench's seeders (minutes at 1,000,000 rows) lift it for their own sessions (`unboundedStatements` in
 *   core/platform/db.ts).
 * Set for the role that runs the migrations (the application's role) in this database only, so other databases on
 * the server and operators' superuser sessions keep their own settings; they apply to sessions opened afterwards.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT = '30s';
export const STATEMENT_TIMEOUT = '60s';

const SETTINGS: [name: string, value: string][] = [
  ['idle_in_transaction_session_timeout', IDLE_IN_TRANSACTION_TIMEOUT],
  ['statement_timeout', STATEMENT_TIMEOUT],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, value] of SETTINGS) {
    // Constants of this file, not input: DO takes no parameters.
    await knex.raw(
      `do $$ begin execute format('alter role %I in database %I set ${name} = %L', current_user, current_database(), '${value}'); end $$`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of SETTINGS) {
    await knex.raw(
      `do $$ begin execute format('alter role %I in database %I reset ${name}', current_user, current_database()); end $$`,
    );
  }
}
