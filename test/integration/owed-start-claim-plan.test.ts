import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { claimLifecycleStarts } from '../../core/lifecycle/lifecycle-consumer';
import { createDb, type Db, type Trx } from '../../core/platform/db';
import { claimOwedDeliveries } from '../../core/webhooks/dispatch';
import { testEnv } from '../support/env';

/**
 * The fair starters' claim (core/temporal/owed-start-claims.ts) reads each organisation's owed rows once per claim,
 * whatever the table's statistics say. Under the production profile's burst the table had last been analysed with
 * almost nothing owed; the planner, expecting one owed row, joined the UPDATE to the claim's pick by re-running the
 * pick (an index scan over every owed row) for each owed row: 10,000 owed deliveries made one claim run 31 s on CPU,
 * and every other tenant's delivery waited behind it. Each table is a temporary stand-in (it comes first on the search
 * path), so its statistics are the test's: analysed with nothing owed, then a burst of owed rows of one organisation
 * and one of another's.
 */
describe('the owed-start claim planned from statistics that say nothing is owed', function () {
  this.timeout(30_000);
  let db: Db;

  // One connection of its own: the temporary tables live as long as it does.
  before(() => {
    db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 1 } });
  });
  after(async () => await db?.destroy());

  const BURST = 2_000;

  /** A table of owed starts: how to add its rows (owed, or done long ago) and its fair starter's claim. */
  interface OwedTable {
    table: string;
    insert: (trx: Trx, organizationId: string, state: 'owed' | 'done', count: number) => Promise<void>;
    claim: (trx: Trx) => Promise<{ organizationId: string }[]>;
  }
  const tables: OwedTable[] = [
    {
      table: 'webhook_deliveries',
      insert: insertDeliveries,
      claim: (trx) => claimOwedDeliveries(trx, 'production', 16, [], 30_000, 32),
    },
    {
      table: 'lifecycle_pending_starts',
      insert: insertPendingStarts,
      claim: (trx) => claimLifecycleStarts(trx, 'production', 16, [], 30_000),
    },
  ];

  for (const { table, insert, claim } of tables) {
    it(`claims from ${table} reading each organisation’s owed rows once, not once per owed row`, async () => {
      await db.raw(`create temporary table ${table} (like public.${table} including all)`);
      const trx = await db.transaction(); // rolled back at the end: the organisations go with it
      try {
        const { burst, other } = await twoOrganizations(trx);
        await insert(trx, other, 'done', 1_500);
        await trx.raw(`analyze pg_temp.${table}`);
        await insert(trx, burst, 'owed', BURST);
        await insert(trx, other, 'owed', 1);

        const before = await indexScansSoFar(trx, table);
        const claimed = await claim(trx);
        const scans = (await indexScansSoFar(trx, table)) - before;

        expect(claimed.filter((d) => d.organizationId === burst)).to.have.length(16);
        expect(claimed.filter((d) => d.organizationId === other)).to.have.length(1);
        // Per organisation: a step of the skip scan, its oldest owed rows, its rows in flight; then the claimed rows.
        expect(scans, 'index scans of the table in one claim').to.be.below(20);
      } finally {
        await trx.rollback();
      }
    });
  }
});

/** The burst's organisation and another, in production mode. */
async function twoOrganizations(trx: Trx): Promise<{ burst: string; other: string }> {
  const ids = { burst: randomUUID(), other: randomUUID() };
  await trx('organizations').insert(
    Object.entries(ids).map(([name, id]) => ({ id, name: `claim plan: ${name}`, mode: 'production' })),
  );
  return ids;
}

/** Scans of the stand-in table's indexes so far in this transaction (each rescan of an inner loop counts). */
async function indexScansSoFar(trx: Trx, table: string): Promise<number> {
  const { rows } = await trx.raw<{ rows: { scans: string }[] }>(
    `select coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0) as scans
       from pg_index i where i.indrelid = ('pg_temp.' || ?)::regclass`,
    [table],
  );
  return Number(rows[0]!.scans);
}

/** `count` deliveries of one organisation: owed (Pending, never started) or done (Succeeded) long ago. */
async function insertDeliveries(trx: Trx, organizationId: string, state: 'owed' | 'done', count: number) {
  const done = state === 'done';
  const status = done ? 'Succeeded' : 'Pending';
  await trx.raw(
    `insert into pg_temp.webhook_deliveries
       (id, organization_id, event_id, event_type, url, secret_iv, secret_tag, secret_ciphertext, status,
        attempt_count, workflow_started_at, created_at)
     select gen_random_uuid(), ?, 'evt_' || gen_random_uuid(), 'debt.created', 'https://example.test/hook',
            '\\x00', '\\x00', '\\x00', ?, ?, case when ? then now() end, now() - interval '1 hour' + n * interval '1 ms'
       from generate_series(1, ?) n`,
    [organizationId, status, done ? 1 : 0, done, count],
  );
}

/** `count` lifecycle starts of one organisation: owed, or done (started) long ago. */
async function insertPendingStarts(trx: Trx, organizationId: string, state: 'owed' | 'done', count: number) {
  await trx.raw(
    `insert into pg_temp.lifecycle_pending_starts (debt_id, organization_id, created_at, started_at)
     select gen_random_uuid(), ?, now() - interval '1 hour' + n * interval '1 ms',
            case when ? then now() - interval '1 hour' end
       from generate_series(1, ?) n`,
    [organizationId, state === 'done', count],
  );
}
