/**
 * The knex migrations on a scratch database of the test server: up, down (all), up again. Proves each migration's
 * `down` undoes its `up` completely, so the second `up` builds exactly the schema of the first.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createDb, type Db } from '../../core/platform/db';
import { migrate, migrationConfig } from '../../scripts/migrate';
import { createScratchDatabase, dropScratchDatabase } from '../support/scratch-databases';

/** Objects knex keeps for its own bookkeeping; the only ones allowed to survive a full rollback. */
const KNEX_OWN = /^public\.knex_migrations(_lock)?(_\w+_seq)?$/;

/** Tables, views, sequences and enum types outside the system schemas, as `schema.name kind`. */
async function schemaObjects(db: Db): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { name: string }[] }>(`
    select n.nspname || '.' || c.relname || ' ' || c.relkind::text as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p', 'v', 'm', 'S')
       and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
    union all
    select n.nspname || '.' || t.typname || ' enum'
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where t.typtype = 'e'
     order by 1`);
  return rows.map((r) => r.name);
}

/** Every column with its type, nullability and default: a second `up` must reproduce them exactly. */
async function columns(db: Db): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { col: string }[] }>(`
    select table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' '
           || is_nullable || ' ' || coalesce(column_default, '') as col
      from information_schema.columns
     where table_schema not in ('pg_catalog', 'information_schema')
     order by 1`);
  return rows.map((r) => r.col);
}

/**
 * Foreign keys with no index a delete of the parent can use: a whole (not partial) index whose leading columns are all
 * the key's. Deleting a parent row looks its children up by the key (a cascade, a `set null`, or the check that none
 * is left); without such an index that is a scan of the child table per parent row deleted.
 */
async function unindexedForeignKeys(db: Db): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { key: string }[] }>(`
    select c.conrelid::regclass::text || ' ' || pg_get_constraintdef(c.oid) as key
      from pg_constraint c
     where c.contype = 'f'
       and not exists (
         select from pg_index i
          where i.indrelid = c.conrelid and i.indpred is null
            and (i.indkey::int2[])[0:least(i.indnkeyatts, cardinality(c.conkey)) - 1] <@ c.conkey)
     order by 1`);
  return rows.map((r) => r.key);
}

describe('knex migrations', function () {
  const scratchName = `client_api_migration_check_${randomBytes(6).toString('hex')}`;
  const files = fs
    .readdirSync(migrationConfig.directory as string)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  let scratch: Db;

  before(async function () {
    scratch = createDb(await createScratchDatabase(scratchName), { pool: { min: 0, max: 2 } });
  });

  after(async function () {
    await scratch?.destroy();
    await dropScratchDatabase(scratchName);
  });

  it('names every migration file YYYYMMDDHHMMSS_verb_object.ts', function () {
    for (const file of files) expect(file).to.match(/^\d{14}_[a-z]+(_[a-z0-9]+)+\.ts$/);
  });

  it('applies every migration, rolls all of them back to no tables but knex’s own, and re-applies the same schema', async function () {
    const firstUp = await migrate(scratch, 'up');
    expect(firstUp).to.deep.equal(files);
    const objectsAfterUp = await schemaObjects(scratch);
    const columnsAfterUp = await columns(scratch);
    expect(objectsAfterUp).to.include.members(['public.knex_migrations r', 'public.knex_migrations_lock r']);

    const down = await migrate(scratch, 'down');
    expect([...down].sort()).to.deep.equal(files);
    const leftovers = (await schemaObjects(scratch)).filter((o) => !KNEX_OWN.test(o.split(' ')[0] ?? ''));
    expect(leftovers, 'objects left after rolling back every migration').to.deep.equal([]);

    const secondUp = await migrate(scratch, 'up');
    expect(secondUp).to.deep.equal(files);
    expect(await schemaObjects(scratch)).to.deep.equal(objectsAfterUp);
    expect(await columns(scratch)).to.deep.equal(columnsAfterUp);
  });

  it('gives every foreign key an index its cascades and checks can use', async function () {
    await migrate(scratch, 'up');
    expect(await unindexedForeignKeys(scratch)).to.deep.equal([]);
  });
});
