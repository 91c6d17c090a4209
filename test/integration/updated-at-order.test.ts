/**
 * `updatedAt` never moves backwards: a write stamps the time its transaction started, so one that
 * began before another committed must still land after it; every change of a row, in commit order, carries a
 * strictly later `updatedAt`, and so do the `debt.updated` events that copy it.
 */
import { expect } from 'chai';
import { updateDebt } from '../../core/debts/debt-updates';
import { useApiSuite } from '../support/api-suite';
import { raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';

async function debtUpdatedEvents(debtId: string): Promise<Debt[]> {
  const rows = await testDb()('events')
    .where({ type: 'debt.updated' })
    .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId])
    .orderBy('seq')
    .select<{ data: { debt: Debt } }[]>('data');
  return rows.map((row) => row.data.debt);
}

function expectStrictlyIncreasing(stamps: string[]): void {
  for (let i = 1; i < stamps.length; i++) {
    expect(Date.parse(stamps[i]!), `updatedAt #${i + 1} after #${i}: ${stamps.join(', ')}`).to.be.greaterThan(
      Date.parse(stamps[i - 1]!),
    );
  }
}

describe('updatedAt in commit order', () => {
  const ctx = useApiSuite();

  it('a write whose transaction began before another change committed still stamps a later updatedAt', async () => {
    const debt = await raiseDebt(ctx.api);
    const trx = await testDb().transaction();
    try {
      await trx.raw('select now()'); // the transaction's clock starts here, before the PATCH below
      const other = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'FIRST' });
      expect(other.status, other.text).to.equal(200);
      const late = await updateDebt(trx, ctx.tenant.organization.id, debt.id, { clientReference: 'SECOND' });
      await trx.commit();
      expect(Date.parse(late!.updatedAt)).to.be.greaterThan(Date.parse(other.body.updatedAt));
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    const events = await debtUpdatedEvents(debt.id);
    expect(events.map((e) => e.clientReference)).to.deep.equal(['FIRST', 'SECOND']);
    expectStrictlyIncreasing(events.map((e) => e.updatedAt));
  });

  it('two PATCHes at once: each change, in commit order, carries a later updatedAt, and the last is what GET shows', async () => {
    const debt = await raiseDebt(ctx.api);
    const [a, b] = await Promise.all([
      ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'A' }),
      ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'B' }),
    ]);
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    const events = await debtUpdatedEvents(debt.id);
    expect(events).to.have.length(2);
    expectStrictlyIncreasing([debt.updatedAt, ...events.map((e) => e.updatedAt)]);
    const now = await ctx.api<Debt>('GET', `/v1/debts/${debt.id}`);
    expect(now.body).to.deep.equal(events[1]);
  });

  it('two changes in one transaction, on one clock, still stamp increasing times', async () => {
    const debt = await raiseDebt(ctx.api);
    const organizationId = ctx.tenant.organization.id;
    const [first, second] = await testDb().transaction(async (trx) => [
      await updateDebt(trx, organizationId, debt.id, { clientReference: 'ONE' }),
      await updateDebt(trx, organizationId, debt.id, { clientReference: 'TWO' }),
    ]);
    expectStrictlyIncreasing([debt.updatedAt, first!.updatedAt, second!.updatedAt]);
  });
});
