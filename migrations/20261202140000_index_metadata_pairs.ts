import type { Knex } from 'knex';

/**
 * The `metadata[key]=value` filter as an index that matches it with the list's order: one row per
 * metadata pair of a debt or debtor, kept by triggers, indexed (organisation, kind, key, value, created_at desc,
 * id desc), so a filtered page is one index range scan however many records the tenant has. The GIN index it
 * replaces could find the records but not in order: the planner walked the tenant's whole list to fill a page of a
 * rare pair (3.5 s at 1,000,000 debts). Triggers fire only when there is metadata, so a debt raised without any pays
 * nothing but the trigger's check.
 */
export const config = { transaction: false };

const KINDS = [
  ['debts', 'debt'],
  ['debtors', 'debtor'],
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table if not exists metadata_pairs (
      organization_id uuid not null,
      record_kind text not null check (record_kind in ('debt', 'debtor')),
      record_id uuid not null,
      record_created_at timestamptz(3) not null,
      key text not null,
      value text not null,
      primary key (record_kind, record_id, key)
    )`);
  await knex.raw(`create index if not exists metadata_pairs_lookup on metadata_pairs
    (organization_id, record_kind, key, value, record_created_at desc, record_id desc)`);
  await knex.raw(`
    create or replace function sync_metadata_pairs() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        delete from metadata_pairs where record_kind = tg_argv[0] and record_id = old.id;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into metadata_pairs (organization_id, record_kind, record_id, record_created_at, key, value)
        select new.organization_id, tg_argv[0], new.id, new.created_at, pair.key, pair.value
          from json_each_text(new.metadata) as pair;
      end if;
      return null;
    end $$`);
  for (const [table, kind] of KINDS) {
    await knex.raw(`drop trigger if exists ${table}_metadata_inserted on ${table}`);
    await knex.raw(`create trigger ${table}_metadata_inserted after insert on ${table} for each row
      when (new.metadata::text <> '{}') execute function sync_metadata_pairs('${kind}')`);
    await knex.raw(`drop trigger if exists ${table}_metadata_updated on ${table}`);
    await knex.raw(`create trigger ${table}_metadata_updated after update of metadata on ${table} for each row
      when (old.metadata::text is distinct from new.metadata::text) execute function sync_metadata_pairs('${kind}')`);
    await knex.raw(`drop trigger if exists ${table}_metadata_deleted on ${table}`);
    await knex.raw(`create trigger ${table}_metadata_deleted after delete on ${table} for each row
      when (old.metadata::text <> '{}') execute function sync_metadata_pairs('${kind}')`);
    await knex.raw(
      `insert into metadata_pairs (organization_id, record_kind, record_id, record_created_at, key, value)
       select t.organization_id, '${kind}', t.id, t.created_at, pair.key, pair.value
         from ${table} t, json_each_text(t.metadata) as pair
        where t.metadata::text <> '{}'
       on conflict do nothing`,
    );
    await knex.raw(`drop index concurrently if exists ${table}_by_metadata`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of KINDS) {
    for (const when of ['inserted', 'updated', 'deleted']) {
      await knex.raw(`drop trigger if exists ${table}_metadata_${when} on ${table}`);
    }
    await knex.raw(
      `create index concurrently if not exists ${table}_by_metadata on ${table} using gin ((metadata::jsonb) jsonb_path_ops)`,
    );
  }
  await knex.raw('drop function if exists sync_metadata_pairs()');
  await knex.raw('drop table if exists metadata_pairs');
}
