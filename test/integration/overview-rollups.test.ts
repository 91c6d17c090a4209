/**
 * The Overview's rollups (migration 20261211090000) on the real database: kept by triggers equal to the aggregate of
 * their source tables through the writers' own functions (an attempt recorded, a run failed for good, a manual retry,
 * the retention purge, a lifecycle payment, the sandbox wipe), through bulk statements, concurrent transactions of one
 * tenant and rolled-back ones; gone with their organisation; and filled by the migration from the rows already there.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import type { DebtStatus } from '../../core/debts/debt-status';
import { recordTransaction } from '../../core/debts/transactions';
import { createDb, type Db } from '../../core/platform/db';
import { purgeFinalDeliveries } from '../../core/webhooks/delivery-retention';
import { recordAttempt } from '../../core/webhooks/delivery-attempts';
import { failUnfinishedDelivery } from '../../core/webhooks/delivery-failure';
import { retryDelivery } from '../../core/webhooks/deliveries';
import { wipeTenantData } from '../../core/sandbox/wipe';
import { migrate, migrationConfig } from '../../scripts/migrate';
import { seedDebts } from '../bench/seed-debts';
import { testDb } from '../support/resources';
import { dailyDeliveries, insertDeliveries, rollupRowCount, rollupsAndSources } from '../support/rollup-fixtures';
import { createScratchDatabase, dropScratchDatabase } from '../support/scratch-databases';

const DAY_MS = 86_400_000;

async function expectRollupsMatch(db: Db, organizationId: string, when: string): Promise<void> {
  const { rollups, sources } = await rollupsAndSources(db, organizationId);
  expect(rollups, when).to.deep.equal(sources);
}

function attempt(deliveryId: string, number: number, succeeded: boolean, last = false) {
  return {
    deliveryId,
    generation: 0,
    number,
    url: 'https://receiver.example.com/hooks',
    startedAt: new Date(),
    succeeded,
    httpStatus: succeeded ? 200 : 503,
    latencyMs: 12,
    error: null,
    responseBody: null,
    status: succeeded ? ('Succeeded' as const) : last ? ('Failed' as const) : ('Pending' as const),
    nextAttemptAt: succeeded || last ? null : new Date(Date.now() + 60_000),
  };
}

async function debtIds(db: Db, organizationId: string, status: DebtStatus, n: number): Promise<string[]> {
  return db('debts').where({ organization_id: organizationId, status }).orderBy('id').limit(n).pluck('id');
}

describe('Overview rollups kept by triggers', function () {
  this.timeout(120_000);

  it('equal their source tables through bulk inserts, the writers’ status changes, payments and deletes', async () => {
    const db = testDb();
    const org = await createOrganization(db, { name: 'rollups follow writes', mode: 'sandbox' });
    const other = await createOrganization(db, { name: 'rollups, another tenant', mode: 'sandbox' });
    try {
      // 30 days of finished deliveries in one statement, a few more each day, one in five failed; the other tenant's.
      await insertDeliveries(
        db,
        org.id,
        dailyDeliveries(30, (day) => 1 + (day % 4), 5),
      );
      await insertDeliveries(
        db,
        other.id,
        dailyDeliveries(3, () => 2, 2),
      );
      const [retried, succeeds, givesUp, untouched] = await insertDeliveries(db, org.id, [
        { status: 'Pending' },
        { status: 'Pending' },
        { status: 'Pending' },
        { status: 'Pending' },
      ]);
      await expectRollupsMatch(db, org.id, 'after the bulk inserts');

      // A failed attempt makes a delivery retrying; a later success or the run's failure for good finishes it.
      for (const id of [retried!, succeeds!, givesUp!])
        expect(await recordAttempt(db, attempt(id, 1, false))).to.equal(true);
      await expectRollupsMatch(db, org.id, 'three deliveries retrying');
      expect((await rollupsAndSources(db, org.id)).rollups.webhook_deliveries_retrying).to.deep.equal({
        retrying: '3',
      });
      expect(await recordAttempt(db, attempt(succeeds!, 2, true))).to.equal(true);
      expect(await failUnfinishedDelivery(db, givesUp!, 0)).to.not.equal(undefined);
      expect(await recordAttempt(db, attempt(retried!, 2, false, true))).to.equal(true);
      await expectRollupsMatch(db, org.id, 'after a success, a failure for good and a last failed attempt');
      // A manual retry: Failed → Pending with its failed attempts, waiting to retry (failing now).
      await db.transaction((trx) => retryDelivery(trx, org.id, retried!));
      await expectRollupsMatch(db, org.id, 'after a manual retry');
      expect((await rollupsAndSources(db, org.id)).rollups.webhook_deliveries_retrying).to.deep.equal({
        retrying: '1',
      });
      // An update that moves nothing the rollups count (the relay's start of a run) writes nothing.
      await db('webhook_deliveries').where({ id: untouched }).update({ workflow_started_at: new Date() });
      await expectRollupsMatch(db, org.id, 'after an unrelated update');

      // The retention purge deletes finished deliveries older than 20 days (here; 90 in production).
      const purged = await purgeFinalDeliveries(db, {
        mode: 'sandbox',
        olderThanDays: 20,
        batchSize: 1_000,
        organizationId: org.id,
      });
      expect(purged).to.be.greaterThan(0);
      await expectRollupsMatch(db, org.id, 'after the retention purge');

      // Debts: bulk insert over every status, lifecycle-like moves, a delete.
      await seedDebts(db, org.id, 40);
      await seedDebts(db, other.id, 8);
      await expectRollupsMatch(db, org.id, 'after the debts’ bulk insert');
      const pending = await debtIds(db, org.id, 'PendingAssignment', 3);
      await db('debts').whereIn('id', pending).update({ status: 'Accepted' });
      const [settles] = await debtIds(db, org.id, 'Active', 1);
      await db('debts').where({ id: settles }).update({ status: 'Settled' });
      await expectRollupsMatch(db, org.id, 'after status changes');

      // Payments: exact decimals per currency and week; failed payments and other movements are not collected.
      const [aud] = await debtIds(db, org.id, 'Accepted', 1);
      for (const amount of ['0.10', '0.20', '1250.55']) {
        await recordTransaction(db, org.id, {
          debtId: aud!,
          direction: 'Inbound',
          status: 'Succeeded',
          type: 'Payment',
          amount,
        });
      }
      await recordTransaction(db, org.id, {
        debtId: aud!,
        direction: 'Inbound',
        status: 'Failed',
        type: 'Payment',
        amount: '99',
      });
      await recordTransaction(db, org.id, {
        debtId: aud!,
        direction: 'Outbound',
        status: 'Succeeded',
        type: 'Remittance',
        amount: '5',
      });
      await db('debts').where({ id: settles }).update({ currency: 'USD' });
      await recordTransaction(db, org.id, {
        debtId: settles!,
        direction: 'Inbound',
        status: 'Succeeded',
        type: 'Payment',
        amount: '7.5',
      });
      await db('transactions')
        .where({ organization_id: org.id, amount: '1250.55' })
        .update({ created_at: new Date(Date.now() - 14 * DAY_MS) }); // a payment of two weeks ago
      await expectRollupsMatch(db, org.id, 'after the payments');
      const collected = (await rollupsAndSources(db, org.id)).rollups.payments_collected_weekly!;
      // This week's AUD 0.10 + 0.20 exactly, the older week's AUD apart, the USD payment in its own currency.
      expect(Object.values(collected).sort()).to.deep.equal(['0.3 / 2', '1250.55 / 1', '7.5 / 1']);
      // A payment later marked Refunded is no longer collected.
      await db('transactions').where({ organization_id: org.id, amount: '7.5' }).update({ status: 'Refunded' });
      await expectRollupsMatch(db, org.id, 'after a payment marked Refunded');

      // The sandbox's reset deletes the tenant's data: the rollups go to nothing, the other tenant's stay.
      await db.transaction((trx) => wipeTenantData(trx, org.id));
      await expectRollupsMatch(db, org.id, 'after the sandbox wipe');
      expect((await rollupsAndSources(db, org.id)).rollups.debt_status_counts).to.deep.equal({});
      await expectRollupsMatch(db, other.id, 'the other tenant, untouched');
      expect((await rollupsAndSources(db, other.id)).rollups.debt_status_counts).to.not.deep.equal({});
    } finally {
      await db('organizations').whereIn('id', [org.id, other.id]).delete();
    }
  });

  it('counts concurrent transactions of one tenant exactly, and rolled-back ones not at all', async () => {
    const db = testDb();
    const org = await createOrganization(db, { name: 'rollups under concurrency', mode: 'production' });
    try {
      await seedDebts(db, org.id, 16);
      const ids = await db('debts').where({ organization_id: org.id }).pluck<string[]>('id');
      const rollback = new Error('rolled back on purpose');
      // Each transaction moves debts, adds deliveries and a payment, on its own connection, all at once.
      const work = ids.map((id, i) =>
        db
          .transaction(async (trx) => {
            await trx('debts')
              .where({ id })
              .update({ status: i % 2 === 0 ? 'Closed' : 'Disputed' });
            await insertDeliveries(trx, org.id, [{ status: 'Succeeded' }, { status: 'Failed' }]);
            await recordTransaction(trx, org.id, {
              debtId: id,
              direction: 'Inbound',
              status: 'Succeeded',
              type: 'Payment',
              amount: '10.01',
            });
            if (i % 4 === 3) throw rollback;
          })
          .catch((err: unknown) => {
            if (err !== rollback) throw err;
          }),
      );
      await Promise.all(work);
      await expectRollupsMatch(db, org.id, 'after the concurrent transactions');
      const { rollups } = await rollupsAndSources(db, org.id);
      expect(Object.values(rollups.payments_collected_weekly!)).to.deep.equal(['120.12 / 12']);
    } finally {
      await db('organizations').where({ id: org.id }).delete();
    }
  });

  it('go with their organisation, and an organisation deleted with its rows raises no error', async () => {
    const db = testDb();
    const org = await createOrganization(db, { name: 'rollups deleted', mode: 'production' });
    await seedDebts(db, org.id, 10);
    const [id] = await insertDeliveries(db, org.id, [{ status: 'Pending' }, { status: 'Failed' }]);
    await recordAttempt(db, attempt(id!, 1, false));
    expect(await rollupRowCount(db, org.id)).to.be.greaterThan(0);
    await db('organizations').where({ id: org.id }).delete();
    expect(await rollupRowCount(db, org.id)).to.equal(0);
  });

  it('are filled by the migration from the rows already there', async () => {
    const name = `client_api_rollup_backfill_${randomBytes(4).toString('hex')}`;
    const scratch = createDb(await createScratchDatabase(name), { pool: { min: 0, max: 2 } });
    try {
      await migrate(scratch, 'up');
      // This migration by name: later ones (which do not depend on it) stay applied.
      const rollupsMigration = '20261211090000_create_overview_rollups.ts';
      const [, undone] = (await scratch.migrate.down({ ...migrationConfig, name: rollupsMigration })) as [
        number,
        string[],
      ];
      expect(undone).to.deep.equal([rollupsMigration]);
      const org = await createOrganization(scratch, { name: 'rows before the rollups', mode: 'production' });
      await seedDebts(scratch, org.id, 24);
      await insertDeliveries(scratch, org.id, [
        ...dailyDeliveries(10, () => 3, 3),
        { status: 'Pending', attemptCount: 2 },
        { status: 'Pending' },
      ]);
      const [debtId] = await debtIds(scratch, org.id, 'Active', 1);
      await recordTransaction(scratch, org.id, {
        debtId: debtId!,
        direction: 'Inbound',
        status: 'Succeeded',
        type: 'Payment',
        amount: '33.33',
      });
      await scratch.migrate.up(migrationConfig);
      await expectRollupsMatch(scratch, org.id, 'after the migration’s backfill');
      const { rollups } = await rollupsAndSources(scratch, org.id);
      expect(rollups.webhook_deliveries_retrying).to.deep.equal({ retrying: '1' });
      expect(Object.keys(rollups.webhook_delivery_days!)).to.have.length(20);
    } finally {
      await scratch.destroy();
      await dropScratchDatabase(name);
    }
  });
});
