import { expect } from 'chai';
import { createDb, type Db, type Trx } from '../../core/platform/db';
import { newId } from '../../core/platform/ids';
import { testEnv } from '../support/env';

/**
 * The claim reads a key's record through the primary key even when its connection's first claim found the table
 * empty: the plan made then (a just-purged table, a new database) scanned the whole table or the whole `expires_at`
 * index, was kept until autovacuum next analysed the table, and every claim meanwhile read every record added since (migration
 * 20261127090000). Which of the two the planner picks depends on the indexes' sizes; here it is the table scan (the
 * bench's purged table got the index scan), and the test counts both.
 */
describe('claim_idempotency_key planned while its table was empty', function () {
  this.timeout(30_000);
  let db: Db;

  // One connection of its own: the function's plan is made at its first call on a connection and kept, so it must be
  // made on this one, against the stand-in table below (a temporary table lives as long as its connection).
  before(() => {
    db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 1 } });
  });
  after(async () => await db?.destroy());

  it('finds a record through the primary key, not by scanning the 500 records added since', async () => {
    // A temporary table of the same name comes first on the search path: it stands in for idempotency_keys inside
    // the function. Left as a purge leaves the real one: every record deleted, vacuumed and analysed.
    await db.raw('create temporary table idempotency_keys (like public.idempotency_keys including all)');
    await insertRecords(db, newId(), 'gone', 2_000);
    await db.raw('delete from pg_temp.idempotency_keys');
    await db.raw('vacuum analyze pg_temp.idempotency_keys');

    const organizationId = newId();
    const trx = await db.transaction(); // rolled back at the end: the records and the table go with it
    try {
      const claim = (key: string) =>
        trx.raw<{ rows: { locked: boolean; fingerprint: string | null }[] }>(
          'select locked, fingerprint from claim_idempotency_key(?, ?)',
          [organizationId, key],
        );
      await claim('first'); // planned now, against the empty table
      await insertRecords(trx, organizationId, 'key', 500);
      const before = await scansSoFar(trx);
      const { rows } = await claim('key-250');
      const after = await scansSoFar(trx);
      expect(rows).to.deep.equal([{ locked: true, fingerprint: 'fp-250' }]);
      const delta = (column: keyof Scans) => after[column] - before[column];
      expect(delta('table'), 'sequential scans').to.equal(0);
      expect(delta('otherIndexes'), 'scans of the expires_at index').to.equal(0);
      expect(delta('primaryKey'), 'primary-key lookups').to.equal(1);
    } finally {
      await trx.rollback();
    }
  });
});

interface Scans {
  table: number;
  primaryKey: number;
  otherIndexes: number;
}

/** Scans of the stand-in table (sequential) and of each of its indexes, in the current transaction so far. */
async function scansSoFar(trx: Trx): Promise<Scans> {
  const { rows } = await trx.raw<{ rows: { table: string; primary_key: string; other_indexes: string }[] }>(
    `select pg_stat_get_xact_numscans(t.oid) as table,
            sum(pg_stat_get_xact_numscans(i.indexrelid)) filter (where i.indisprimary) as primary_key,
            coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)) filter (where not i.indisprimary), 0) as other_indexes
       from pg_class t join pg_index i on i.indrelid = t.oid
      where t.oid = 'pg_temp.idempotency_keys'::regclass
      group by t.oid`,
  );
  const row = rows[0]!;
  return { table: Number(row.table), primaryKey: Number(row.primary_key), otherIndexes: Number(row.other_indexes) };
}

/** `count` unexpired records of one organisation, keyed `<prefix>-1`… with fingerprints `fp-1`… */
async function insertRecords(db: Db, organizationId: string, prefix: string, count: number): Promise<void> {
  await db.raw(
    `insert into pg_temp.idempotency_keys
       (organization_id, key, fingerprint, response_status, response_headers, response_body, request_id, expires_at)
     select ?, ? || '-' || n, 'fp-' || n, 201, '{}', '', 'req', now() + interval '1 day'
       from generate_series(1, ?) n`,
    [organizationId, prefix, count],
  );
}
