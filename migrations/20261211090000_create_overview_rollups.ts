import type { Knex } from 'knex';

/**
 * Rollups the console's Overview reads in place of scanning the tenant's rows (issue 40), so that its cost does not
 * grow with the tenant:
 * - `debt_status_counts`: debts per (organisation, status);
 * - `webhook_delivery_days`: final deliveries per (organisation, UTC day of their last change, Succeeded|Failed);
 * - `webhook_deliveries_retrying`: deliveries per organisation that are `Pending` after a failed attempt (failing now);
 * - `payments_collected_weekly`: payments collected (`Inbound`, `Succeeded`, `Payment` transactions) per (organisation,
 *   ISO week of their creation, Monday UTC, currency), amount (numeric) and count.
 *
 * Each is kept by statement-level triggers on its source table, in the transaction of the change that moves it, so
 * every writer is covered (the API, the workers, the CLI, the sandbox's seed and wipe, the retention purge, an
 * organisation's cascade) and a rolled-back change rolls its counts back. A trigger sums the statement's change per key
 * from its transition tables (new rows +1, old rows −1; an update that leaves the key alone nets to nothing and writes
 * nothing) and upserts the sums in key order, so one statement locks its keys in one order.
 *
 * Every key is split into SLOTS rows by the writing backend (`pg_backend_pid() % SLOTS`): concurrent transactions of
 * one tenant (say 20 connections raising debts) each increment their own connection's row instead of queueing on one
 * row until commit. A slot's count may go negative (a debt counted in one slot leaves from another); the readers sum
 * the slots, at most SLOTS rows a key.
 *
 * Deletes only decrement the rollups of an organisation that still exists: when an organisation is deleted, its rows'
 * cascade would otherwise insert rollup rows for it (its own rollup rows go by their own cascade).
 *
 * The rollups are filled from the existing rows in this migration's transaction, after the triggers are created:
 * creating a trigger locks its table against writers until the migration commits, so no change falls between.
 */
const SLOTS = 16;
const SLOT = `(pg_backend_pid() % ${SLOTS})::smallint`;
const UTC_DAY = (column: string) => `(${column} at time zone 'UTC')::date`;
const UTC_WEEK = (column: string) => `date_trunc('week', ${column} at time zone 'UTC')::date`;

interface Rollup {
  /** The rollup's table. */
  table: string;
  /** Its key columns (with the slot last, the primary key) and value columns with their types. */
  keys: [string, string][];
  values: [string, string][];
  /** The source table and which of its rows count. */
  source: string;
  where: string;
  /** The key columns' and the values' expressions over a source row. */
  keyOf: string[];
  valueOf: string[];
}

const ROLLUPS: Rollup[] = [
  {
    table: 'debt_status_counts',
    keys: [['status', 'text']],
    values: [['count', 'bigint']],
    source: 'debts',
    where: 'true',
    keyOf: ['status'],
    valueOf: ['1'],
  },
  {
    table: 'webhook_delivery_days',
    keys: [
      ['day', 'date'],
      ['status', 'text'],
    ],
    values: [['count', 'bigint']],
    source: 'webhook_deliveries',
    where: `status in ('Succeeded', 'Failed')`,
    keyOf: [UTC_DAY('updated_at'), 'status'],
    valueOf: ['1'],
  },
  {
    table: 'webhook_deliveries_retrying',
    keys: [],
    values: [['count', 'bigint']],
    source: 'webhook_deliveries',
    where: `status = 'Pending' and attempt_count > 0`,
    keyOf: [],
    valueOf: ['1'],
  },
  {
    table: 'payments_collected_weekly',
    keys: [
      ['week', 'date'],
      ['currency', 'text'],
    ],
    values: [
      ['amount', 'numeric'],
      ['payments', 'bigint'],
    ],
    source: 'transactions',
    where: `direction = 'Inbound' and status = 'Succeeded' and type = 'Payment'`,
    keyOf: [UTC_WEEK('created_at'), 'currency'],
    valueOf: ['amount', '1'],
  },
];

const SOURCES = [...new Set(ROLLUPS.map((r) => r.source))];
const OPERATIONS = ['insert', 'update', 'delete'] as const;

const functionName = (source: string) => `keep_${source}_rollups`;
const triggerName = (source: string, op: string) => `${source}_rollups_on_${op}`;

const keyColumns = (r: Rollup) => ['organization_id', ...r.keys.map(([name]) => name)];

/** The rows of `rows` that count, as (key…, value…) with each value times `sign`. */
function signed(r: Rollup, rows: string, sign: 1 | -1): string {
  const keys = ['organization_id', ...r.keyOf.map((e, i) => `${e} as ${r.keys[i]![0]}`)];
  const values = r.valueOf.map((e, i) => `${sign === 1 ? '' : '-'}${e} as ${r.values[i]![0]}`);
  return `select ${[...keys, ...values].join(', ')} from ${rows} where ${r.where}`;
}

/**
 * The upsert of the statement's net change to `r`, from the transition tables `parts` names. With `ifOrganization`,
 * keys of a deleted organisation are skipped.
 */
function applyChange(r: Rollup, parts: string[], ifOrganization: boolean): string {
  const keys = keyColumns(r);
  const sums = r.values.map(([name]) => `sum(${name}) as ${name}`);
  const changed = r.values.map(([name]) => `sum(${name}) <> 0`).join(' or ');
  const exists = ifOrganization
    ? 'where exists (select 1 from organizations o where o.id = change.organization_id)'
    : '';
  return `
    insert into ${r.table} as r (${[...keys, 'slot', ...r.values.map(([n]) => n)].join(', ')})
    select ${keys.join(', ')}, ${SLOT}, ${r.values.map(([n]) => n).join(', ')}
      from (select ${keys.join(', ')}, ${sums.join(', ')}
              from (${parts.join(' union all ')}) as moved
             group by ${keys.join(', ')}
            having ${changed}) as change
      ${exists}
     order by ${keys.join(', ')}
    on conflict (${[...keys, 'slot'].join(', ')}) do update
       set ${r.values.map(([n]) => `${n} = r.${n} + excluded.${n}`).join(', ')};`;
}

function triggerFunction(source: string): string {
  const rollups = ROLLUPS.filter((r) => r.source === source);
  const body = (parts: (r: Rollup) => string[], ifOrganization: boolean) =>
    rollups.map((r) => applyChange(r, parts(r), ifOrganization)).join('\n');
  return `
    create function ${functionName(source)}() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${body((r) => [signed(r, 'new_rows', 1)], false)}
      elsif tg_op = 'UPDATE' then
        ${body((r) => [signed(r, 'new_rows', 1), signed(r, 'old_rows', -1)], false)}
      else
        ${body((r) => [signed(r, 'old_rows', -1)], true)}
      end if;
      return null;
    end $$`;
}

function createTable(r: Rollup): string {
  const columns = [
    'organization_id uuid not null references organizations (id) on delete cascade',
    ...r.keys.map(([name, type]) => `${name} ${type} not null`),
    'slot smallint not null',
    ...r.values.map(([name, type]) => `${name} ${type} not null`),
  ];
  return `create table ${r.table} (${columns.join(', ')}, primary key (${[...keyColumns(r), 'slot'].join(', ')}))`;
}

function backfill(r: Rollup): string {
  const keys = keyColumns(r);
  return `insert into ${r.table} (${[...keys, 'slot', ...r.values.map(([n]) => n)].join(', ')})
    select ${keys.join(', ')}, 0, ${r.values.map(([n]) => `sum(${n})`).join(', ')}
      from (${signed(r, r.source, 1)}) as counted
     group by ${keys.join(', ')}`;
}

export async function up(knex: Knex): Promise<void> {
  for (const r of ROLLUPS) await knex.raw(createTable(r));
  for (const source of SOURCES) {
    await knex.raw(triggerFunction(source));
    for (const op of OPERATIONS) {
      const referencing =
        op === 'insert'
          ? 'new table as new_rows'
          : op === 'delete'
            ? 'old table as old_rows'
            : 'old table as old_rows new table as new_rows';
      await knex.raw(
        `create trigger ${triggerName(source, op)} after ${op} on ${source}
           referencing ${referencing} for each statement execute function ${functionName(source)}()`,
      );
    }
  }
  for (const r of ROLLUPS) await knex.raw(backfill(r));
}

export async function down(knex: Knex): Promise<void> {
  for (const source of SOURCES) {
    for (const op of OPERATIONS) await knex.raw(`drop trigger if exists ${triggerName(source, op)} on ${source}`);
    await knex.raw(`drop function if exists ${functionName(source)}()`);
  }
  for (const r of [...ROLLUPS].reverse()) await knex.raw(`drop table if exists ${r.table}`);
}
