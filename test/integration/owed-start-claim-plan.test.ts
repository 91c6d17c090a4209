import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { claimLifecycleStarts } from '../../core/lifecycle/lifecycle-consumer';
import { claimDueNotifications } from '../../core/notifications/debtor-notifications';
import { createDb, type Db, type Trx } from '../../core/platform/db';
import { claimOwedDeliveries } from '../../core/webhooks/dispatch';
import { testEnv } from '../support/env';

/**
 * The fair starters' claim (core/temporal/owed-start-claims.ts) reads what it claims, whatever the table's statistics
 * say. Under the production profile's burst the table had last been analysed with almost nothing owed; the planner,
 * expecting one owed row, joined the UPDATE to the claim's pick by re-running the pick (an index scan over every owed
 * row) for each owed row: 10,000 owed deliveries made one claim run 31 s on CPU, and every other tenant's delivery
 * waited behind it. With that fixed, the same statistics still had the claim walk every owed row, several times: a
 * partial index of the owed rows looks empty to them, so the planner used it for the UPDATE's re-check, the lifecycle
 * starts' count of rows in flight, and (by age alone) the deliveries' skip scan and pick — 23 ms a claim at 100,000
 * owed deliveries, 3 ms now. The mail dispatcher's claim (core/notifications/debtor-notifications.ts) has the same
 * shape and had the same walk in its UPDATE's re-check: 166 ms at 100,000 pending mails, 8 ms now. Each table is a
 * temporary stand-in (it comes first on the search path), so its statistics are the test's: analysed with nothing
 * owed, then a burst of owed rows of one organisation and one of another's.
 */
describe('the fair claims (starts and mail) planned from statistics that say nothing is owed', function () {
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
    {
      table: 'debtor_notifications',
      insert: insertNotifications,
      claim: async (trx) =>
        (await claimDueNotifications(trx, 'production', 17)).map((n) => ({ organizationId: n.organization_id })),
    },
  ];

  for (const { table, insert, claim } of tables) {
    it(`claims from ${table} reading the rows it claims, not every owed row, nor each once per owed row`, async () => {
      await db.raw(`create temporary table ${table} (like public.${table} including all)`);
      const trx = await db.transaction(); // rolled back at the end: the organisations go with it
      try {
        const { burst, other } = await twoOrganizations(trx);
        // What came before the burst: work of many organisations, all done (the stand-in has no foreign keys).
        for (let i = 0; i < 30; i++) await insert(trx, i === 0 ? other : randomUUID(), 'done', 50);
        await trx.raw(`analyze pg_temp.${table}`);
        await insert(trx, burst, 'owed', BURST);
        await insert(trx, other, 'owed', 1);

        const before = await readsSoFar(trx, table);
        const claimed = await claim(trx);
        const after = await readsSoFar(trx, table);

        expect(claimed.filter((d) => d.organizationId === burst)).to.have.length(16);
        expect(claimed.filter((d) => d.organizationId === other)).to.have.length(1);
        // Per organisation: a step of the skip scan, its next owed rows, its rows in flight; then each claimed row by
        // its key. Not a scan per owed row (the pick re-run for each).
        expect(after.scans - before.scans, 'scans of the table and its indexes in one claim').to.be.below(40);
        // And each reads what it needs, not every owed row: no walk of an index these statistics call empty, nor of
        // the table they call small.
        expect(after.read - before.read, 'index entries and rows read in one claim').to.be.below(100);
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

/**
 * Scans of the stand-in table so far in this transaction — of its indexes (each rescan of an inner loop counts, and
 * each key of an `= any(…)` lookup) and of the table itself — and the entries and rows they read.
 */
async function readsSoFar(trx: Trx, table: string): Promise<{ scans: number; read: number }> {
  const { rows } = await trx.raw<{ rows: { scans: string; read: string }[] }>(
    `select pg_stat_get_xact_numscans(t.oid)
              + coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0) as scans,
            pg_stat_get_xact_tuples_returned(t.oid)
              + coalesce(sum(pg_stat_get_xact_tuples_returned(i.indexrelid)), 0) as read
       from pg_class t left join pg_index i on i.indrelid = t.oid
      where t.oid = ('pg_temp.' || ?)::regclass group by t.oid`,
    [table],
  );
  return { scans: Number(rows[0]!.scans), read: Number(rows[0]!.read) };
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

/** `count` portal mails of one organisation: pending, or sent long ago. */
async function insertNotifications(trx: Trx, organizationId: string, state: 'owed' | 'done', count: number) {
  await trx.raw(
    `insert into pg_temp.debtor_notifications (id, organization_id, debt_id, kind, source_id, status, created_at)
     select gen_random_uuid(), ?, gen_random_uuid(), 'portal_link', 'debt_' || gen_random_uuid(), ?,
            now() - interval '1 hour' + n * interval '1 ms'
       from generate_series(1, ?) n`,
    [organizationId, state === 'done' ? 'sent' : 'pending', count],
  );
}
