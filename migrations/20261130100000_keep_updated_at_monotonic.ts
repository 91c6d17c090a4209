import type { Knex } from 'knex';

/**
 * `updatedAt` never moves backwards. Writes stamp `updated_at` with `now()`, the time their
 * transaction STARTED: a transaction that began before another one committed a later stamp on the same row would
 * otherwise write an older time over it (a PATCH whose recall commits through the debt's workflow, then the request's
 * own transaction writes its field with its start time). A receiver that keeps the newest `updatedAt` would keep the
 * stale copy. Under the row lock an UPDATE sees the last committed row, so moving a present-time stamp to at least the
 * previous stamp plus a millisecond keeps every row's stamps increasing in commit order.
 *
 * Only present-time stamps are moved (within a second of `now()`): a deliberate back-dating (a fixture ageing rows
 * for the retention tests, the sandbox seed) is left as written.
 */
const TABLES = [
  'organizations',
  'debtors',
  'debts',
  'transactions',
  'branding',
  'webhook_configs',
  'webhook_deliveries',
] as const;

const FUNCTION = 'keep_updated_at_monotonic';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function ${FUNCTION}() returns trigger language plpgsql as $$
    begin
      if new.updated_at >= now() - interval '1 second'
         and new.updated_at <= old.updated_at then
        new.updated_at := old.updated_at + interval '1 millisecond';
      end if;
      return new;
    end $$`);
  for (const table of TABLES) {
    await knex.raw(
      `create trigger ${table}_updated_at_monotonic before update of updated_at on ?? for each row execute function ${FUNCTION}()`,
      [table],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`drop trigger if exists ${table}_updated_at_monotonic on ??`, [table]);
  }
  await knex.raw(`drop function if exists ${FUNCTION}()`);
}
