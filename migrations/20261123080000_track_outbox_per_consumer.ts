import type { Knex } from 'knex';

/**
 * The outbox gets one dispatch state per consumer (webhook deliveries, debt lifecycles, …) instead of one
 * `dispatched_at` flag that only a single consumer could own.
 *
 * Every event gets a position: the id of the transaction that wrote it (`txid`, xid8) and a sequence number (`seq`).
 * A transaction id is fixed when the transaction starts, so positions are not in commit order; but once a transaction
 * id is below the oldest one still running (`pg_snapshot_xmin(pg_current_snapshot())`), no event can ever appear at
 * a position below it. A consumer reads only below that horizon, so a cursor (`outbox_cursors`: the last position a
 * consumer has taken, per mode) never skips an event that commits late.
 *
 * Existing events all get this migration's transaction id, numbered with the dispatched ones first, and the webhook
 * consumer's cursors start just after the last dispatched one: exactly the undispatched events remain to be taken.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table events add column txid xid8, add column seq bigint`);
  await knex.raw(`
    with ordered as (
      select id, row_number() over (order by dispatched_at is null, created_at, id) as n from events
    )
    update events e set txid = pg_current_xact_id(), seq = ordered.n from ordered where ordered.id = e.id`);
  await knex.raw(`create sequence events_seq_seq owned by events.seq`);
  await knex.raw(`select setval('events_seq_seq', coalesce((select max(seq) from events), 0) + 1, false)`);
  await knex.raw(`
    alter table events
      alter column txid set default pg_current_xact_id(), alter column txid set not null,
      alter column seq set default nextval('events_seq_seq'), alter column seq set not null`);
  await knex.raw(`create index events_outbox_position on events (txid, seq)`);

  await knex.raw(`
    create table outbox_cursors (
      consumer text not null,
      mode text not null check (mode in ('production', 'sandbox')),
      txid xid8 not null,
      seq bigint not null,
      updated_at timestamptz(3) not null default now(),
      primary key (consumer, mode)
    )`);
  await knex.raw(`
    insert into outbox_cursors (consumer, mode, txid, seq)
    select 'webhook-deliveries', mode, pg_current_xact_id(),
           (select count(*) from events where dispatched_at is not null)
      from (values ('production'), ('sandbox')) as modes(mode)`);
  await knex.raw(`drop index events_undispatched`);
  await knex.raw(`alter table events drop column dispatched_at`);
}

/** Back to one flag: an event is dispatched when the webhook consumer of its organisation's mode has taken it. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table events add column dispatched_at timestamptz(3)`);
  await knex.raw(`
    update events e set dispatched_at = now()
      from organizations o, outbox_cursors c
     where o.id = e.organization_id and c.consumer = 'webhook-deliveries' and c.mode = o.mode
       and (e.txid, e.seq) <= (c.txid, c.seq)`);
  await knex.raw(`create index events_undispatched on events (created_at, id) where dispatched_at is null`);
  await knex.raw(`drop table outbox_cursors`);
  await knex.raw(`drop index events_outbox_position`);
  await knex.raw(`alter table events drop column txid, drop column seq`);
}
