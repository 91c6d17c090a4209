/**
 * The console Overview's reads (core/staff/console-overview.ts over core/rollups/overview-rollups.ts) on the real
 * database: a tenant with deliveries over 30 days, debts over every status and payments in two currencies, each
 * figure scoped to the organisation, with zeros where nothing happened. Its statement is named (planned generically,
 * for any tenant), so it is checked here on data, not only through the page.
 */
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { DEBT_STATUSES, NON_TERMINAL_STATUSES } from '../../core/debts/debt-status';
import { recordTransaction } from '../../core/debts/transactions';
import { COLLECTED_WEEKS, DELIVERY_DAYS, utcDay, utcWeek } from '../../core/rollups/overview-rollups';
import { loadConsoleOverview } from '../../core/staff/console-overview';
import { seedDebts } from '../bench/seed-debts';
import { insertDeliveries, type DeliverySpec } from '../support/rollup-fixtures';
import { testDb } from '../support/resources';

const DAY_MS = 86_400_000;
/** Mid-day UTC, so that "n days ago" falls on the calendar day n back whatever the hour the test runs. */
const NOW = new Date(Date.UTC(2026, 10, 25, 12, 0, 0)); // a Wednesday

describe('console Overview reads (rollups: deliveries per day, debts by status, collected per week)', () => {
  it('gives a tenant’s 30 days of deliveries, failing now, the week’s failures, debts and payments, of this organisation only', async () => {
    const db = testDb();
    const [org, other, empty] = await Promise.all([
      createOrganization(db, { name: 'overview reads', mode: 'production' }),
      createOrganization(db, { name: 'overview reads, another tenant', mode: 'production' }),
      createOrganization(db, { name: 'overview reads, nothing yet', mode: 'production' }),
    ]);
    try {
      const ago = Date.now() - NOW.getTime(); // the fixtures write times relative to the real clock
      // Day d back from NOW (noon) has 1 + d % 3 deliveries, the first of each two Failed; 40 days, 10 outside.
      const placed: DeliverySpec[] = [];
      for (let day = 0; day < 40; day++) {
        for (let i = 0; i < 1 + (day % 3); i++) {
          placed.push({ status: i % 2 === 0 ? 'Failed' : 'Succeeded', agoMs: ago + day * DAY_MS - 60_000 });
        }
      }
      await insertDeliveries(db, org.id, placed);
      const [newestFailure] = await insertDeliveries(db, org.id, [{ status: 'Failed', agoMs: ago - 120_000 }]);
      await insertDeliveries(db, org.id, [
        { status: 'Pending', attemptCount: 2, agoMs: ago },
        { status: 'Pending', attemptCount: 1, agoMs: ago },
        { status: 'Pending', agoMs: ago }, // not attempted yet: not failing
      ]);
      await insertDeliveries(db, other.id, [
        { status: 'Failed', agoMs: ago },
        { status: 'Pending', attemptCount: 1 },
      ]);
      await seedDebts(db, org.id, 21);
      await seedDebts(db, other.id, 9);
      const [debt] = await db('debts').where({ organization_id: org.id }).orderBy('id').limit(1).pluck<string[]>('id');
      for (const [amount, weeksAgo] of [
        ['0.10', 0],
        ['0.20', 0],
        ['500.00', 3],
        ['12.00', 20], // outside the 12 weeks
      ] as const) {
        const payment = await recordTransaction(db, org.id, {
          debtId: debt!,
          direction: 'Inbound',
          status: 'Succeeded',
          type: 'Payment',
          amount,
        });
        await db('transactions')
          .where({ id: payment.id })
          .update({ created_at: new Date(NOW.getTime() - weeksAgo * 7 * DAY_MS) });
      }

      const overview = await loadConsoleOverview(db, org.id, NOW);

      // Deliveries: 30 days oldest first, each day's finished ones by outcome (index i is 29 − i days back).
      expect(overview.deliveryDays).to.have.length(DELIVERY_DAYS);
      expect(overview.deliveryDays[0]!.day).to.equal(utcDay(NOW, -(DELIVERY_DAYS - 1)));
      expect(overview.deliveryDays.at(-1)!.day).to.equal(utcDay(NOW));
      const expectedDays = overview.deliveryDays.map((_, i) => {
        const back = DELIVERY_DAYS - 1 - i;
        const n = 1 + (back % 3);
        const failed = Math.ceil(n / 2) + (back === 0 ? 1 : 0);
        return { day: utcDay(NOW, -back), succeeded: n - Math.ceil(n / 2), failed };
      });
      expect(overview.deliveryDays).to.deep.equal(expectedDays);
      expect(overview.failingNow).to.equal(2);
      const lastSeven = expectedDays.slice(-7).reduce((sum, d) => sum + d.failed, 0);
      expect(overview.failedDeliveryCount).to.equal(lastSeven);
      expect(overview.failedSince).to.equal(`${utcDay(NOW, -6)}T00:00:00.000Z`);
      expect(overview.recentFailures[0]).to.include({
        id: newestFailure,
        eventType: 'debt.created',
        url: 'https://receiver.example.com/hooks',
      });
      expect(overview.recentFailures).to.have.length(lastSeven);
      const times = overview.recentFailures.map((f) => f.failedAt);
      expect(times).to.deep.equal([...times].sort().reverse());
      expect(times.every((t) => t >= overview.failedSince)).to.equal(true);

      // Debts: seedDebts gives debt i the status DEBT_STATUSES[i % 8] (i from 1): 21 debts.
      const expectedDebts = DEBT_STATUSES.map((status) => ({
        status,
        count: [...Array(21).keys()].filter((i) => DEBT_STATUSES[(i + 1) % DEBT_STATUSES.length] === status).length,
      }));
      expect(overview.debtsByStatus).to.deep.equal(expectedDebts);
      expect(overview.openDebts).to.deep.equal(expectedDebts.filter((d) => NON_TERMINAL_STATUSES.includes(d.status)));

      // Payments: 12 weeks of AUD, exact decimals, zeros between.
      expect(overview.collected.map((c) => c.currency)).to.deep.equal(['AUD']);
      const weeks = overview.collected[0]!.weeks;
      expect(weeks).to.have.length(COLLECTED_WEEKS);
      expect(weeks.at(-1)).to.deep.equal({ week: utcWeek(NOW), amount: '0.3000', payments: 2 });
      expect(weeks.at(-4)).to.deep.equal({ week: utcWeek(NOW, -3), amount: '500.0000', payments: 1 });
      expect(weeks.filter((w) => w.payments === 0)).to.have.length(COLLECTED_WEEKS - 2);

      const nothing = await loadConsoleOverview(db, empty.id, NOW);
      expect(nothing.debtsByStatus.map((row) => row.count)).to.deep.equal(DEBT_STATUSES.map(() => 0));
      expect(nothing.deliveryDays.every((d) => d.succeeded === 0 && d.failed === 0)).to.equal(true);
      expect(nothing.failingNow).to.equal(0);
      expect(nothing.failedDeliveryCount).to.equal(0);
      expect(nothing.recentFailures).to.deep.equal([]);
      expect(nothing.collected).to.deep.equal([]);
    } finally {
      await db('organizations').whereIn('id', [org.id, other.id, empty.id]).delete();
    }
  });
});
