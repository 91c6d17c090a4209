import type { Knex } from 'knex';

/**
 * Wakes the webhook relay the moment an event commits: NOTIFY is transactional (delivered at commit, dropped on
 * rollback), so it fires exactly when the outbox row becomes visible. Per statement, and identical notifications in
 * one transaction collapse into one, so a burst costs one wake-up. The relay also polls, in case one is missed.
 * The channel is OUTBOX_CHANNEL of core/webhook-dispatch.ts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function notify_webhook_outbox() returns trigger language plpgsql as $$
    begin
      perform pg_notify('webhook_outbox', '');
      return null;
    end $$`);
  await knex.raw(`
    create trigger events_notify_webhook_outbox after insert on events
      for each statement execute function notify_webhook_outbox()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists events_notify_webhook_outbox on events');
  await knex.raw('drop function if exists notify_webhook_outbox()');
}
