import type { Knex } from 'knex';

/**
 * The per-statement `NOTIFY` on every events insert goes: PostgreSQL serialises the commits of all transactions that
 * notified (a global lock on the notification queue at commit), so every event-writing request queued behind every
 * other. The relays poll briefly instead (core/events/relay.ts), and are still woken by an explicit notification for
 * the rare operations that want it (a delivery retry).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists events_notify_webhook_outbox on events');
  await knex.raw('drop function if exists notify_webhook_outbox()');
}

export async function down(knex: Knex): Promise<void> {
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
