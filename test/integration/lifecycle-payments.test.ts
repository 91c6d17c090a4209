import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { listTransactions } from '../../core/debts/transactions';
import { testDb } from '../support/resources';
import {
  expectApplied,
  expectRefused,
  monthlyPlan,
  payment,
  raiseLifecycleDebt,
  type LifecycleDebt,
  planScheduleOf,
} from '../support/lifecycle';

async function withPlan(count: number, overrides: Record<string, unknown> = {}): Promise<LifecycleDebt> {
  const debt = await raiseLifecycleDebt(overrides);
  expectApplied(await debt.apply({ kind: 'accept' }));
  expectApplied(await debt.apply(monthlyPlan(count)));
  return debt;
}

describe('Lifecycle payments: exact balances, instalments, once per processor reference', () => {
  it('records a part payment: the transaction, a lower balance, the oldest instalment paid, payment.received then debt.updated', async () => {
    const debt = await withPlan(3);
    const before = await debt.debt();
    const result = expectApplied(await debt.apply(payment('400', 'pi_part')));
    expect(result.state.plan).to.deep.include({ instalmentsPaid: 1, nextUnpaid: { index: 1, dueDate: '2026-02-28' } });
    expect((await planScheduleOf(debt.debtId)).map((i) => i.paid)).to.deep.equal(['333.33', '66.67', '0']);
    const current = await debt.debt();
    expect(current).to.include({ status: 'Active', outstandingPrincipal: 600 });
    expect(current.plan).to.include({ instalmentsPaid: 1, nextDueDate: '2026-02-28' });
    // The payment exactly as GET /v1/payments returns it.
    const { data: payments } = await listTransactions(testDb(), debt.organizationId, {
      debtId: debt.debtId,
      paymentsOnly: true,
      page: { limit: 10 },
    });
    expect(payments).to.have.length(1);
    expect(payments[0]).to.include({ direction: 'Inbound', status: 'Succeeded', type: 'Payment', amount: 400 });
    const events = (await debt.events()).slice(-2);
    expect(events.map((e) => [e.type, e.data])).to.deep.equal([
      ['payment.received', { payment: payments[0], debt: current }],
      ['debt.updated', { debt: current, previousAttributes: { outstandingPrincipal: 1000, plan: before.plan } }],
    ]);
  });

  it('counts a processor reference reported twice once, even with a newer expectedVersion', async () => {
    const debt = await withPlan(3);
    expectApplied(await debt.apply(payment('100', 'pi_twice')));
    const before = await debt.snapshot();
    const again = await debt.apply(payment('100', 'pi_twice'));
    expect(again.outcome).to.equal('duplicate');
    expect(again.state.version).to.equal(3);
    expect(await debt.snapshot()).to.deep.equal(before);
    expect((await debt.debt()).outstandingPrincipal).to.equal(900);
  });

  it('keeps one payment per (debt, reference, outcome) in the database itself', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply(payment('10', 'pi_unique')));
    const [row] = await testDb()('transactions').where({ debt_id: debt.debtId });
    const failure = await testDb()('transactions')
      .insert({ ...row!, id: randomUUID() })
      .catch((err: { code?: string }) => err);
    expect(failure).to.have.property('code', '23505');
  });

  it('refuses an overpayment with invalid_request and a clear detail, writing nothing', async () => {
    const debt = await raiseLifecycleDebt({ originalPrincipal: '100.5' });
    const before = await debt.snapshot();
    const detail = expectRefused(await debt.apply(payment('100.51', 'pi_over')), 'invalid_request');
    expect(detail).to.equal(
      'The payment of 100.51 AUD exceeds the outstanding principal of 100.5 AUD; it was not recorded.',
    );
    expect(await debt.snapshot()).to.deep.equal(before);
  });

  it('refuses an amount that is not positive or has more decimals than the currency, and a missing reference', async () => {
    const debt = await raiseLifecycleDebt({ currency: 'JPY', originalPrincipal: '1000' });
    const before = await debt.snapshot();
    expect(expectRefused(await debt.apply(payment('10.5', 'pi_x')), 'invalid_request')).to.contain('0 decimal places');
    expectRefused(await debt.apply(payment('0', 'pi_y')), 'invalid_request');
    expectRefused(await debt.apply(payment('10', ' ')), 'invalid_request');
    expect(await debt.snapshot()).to.deep.equal(before);
  });

  it('records a failed payment as an Inbound/Failed Payment with no balance change, no event and the same updatedAt', async () => {
    const debt = await withPlan(3);
    const before = await debt.debt();
    const eventsBefore = await debt.events();
    const result = expectApplied(await debt.apply(payment('333.33', 'pi_retry', false)));
    expect(result.state.version).to.equal(3);
    expect(await debt.debt()).to.deep.equal(before);
    expect(await debt.events()).to.deep.equal(eventsBefore);
    expect((await debt.transactions()).map((t) => [t.status, t.amount, t.processorReference])).to.deep.equal([
      ['Failed', 333.33, 'pi_retry'],
    ]);
    expect((await debt.apply(payment('333.33', 'pi_retry', false))).outcome).to.equal('duplicate');
    // The processor's retry of that payment succeeds under the same reference.
    expectApplied(await debt.apply(payment('333.33', 'pi_retry')));
    expect((await debt.debt()).plan).to.include({ instalmentsPaid: 1 });
  });

  it('settles a 6-instalment monthly plan paid exactly: outstanding 0, Settled, plan Completed', async () => {
    const debt = await withPlan(6, { originalPrincipal: '1000' });
    const schedule = await planScheduleOf(debt.debtId);
    expect(schedule.map((i) => i.amount)).to.deep.equal(['166.66', '166.66', '166.66', '166.66', '166.66', '166.7']);
    expect(schedule.map((i) => i.dueDate)).to.deep.equal([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
    ]);
    let beforeLast = await debt.debt();
    for (const [i, instalment] of schedule.entries()) {
      if (i === schedule.length - 1) beforeLast = await debt.debt();
      const result = expectApplied(await debt.apply(payment(instalment.amount, `pi_${i}`)));
      const progress = (await debt.debt()).plan;
      expect(progress?.instalmentsPaid, `after payment ${i}`).to.equal(i + 1);
      expect(progress?.nextDueDate).to.equal(schedule[i + 1]?.dueDate ?? null);
      if (i < 5) expect(result.state.status).to.equal('Active');
    }
    const settled = await debt.debt();
    expect(settled).to.include({ status: 'Settled', outstandingPrincipal: 0 });
    expect(settled.plan).to.deep.equal({
      status: 'Completed',
      instalmentAmount: 166.66,
      frequency: 'Monthly',
      instalmentCount: 6,
      instalmentsPaid: 6,
      nextDueDate: null,
    });
    const last = (await debt.events()).slice(-2);
    expect(last.map((e) => e.type)).to.deep.equal(['payment.received', 'debt.updated']);
    expect(last[1]!.data).to.deep.equal({
      debt: settled,
      previousAttributes: { status: 'Active', outstandingPrincipal: 166.7, plan: beforeLast.plan },
    });
    // The settling payment reported again is a duplicate; a new one on a settled debt is refused.
    expect((await debt.apply(payment('166.7', 'pi_5'))).outcome).to.equal('duplicate');
    expectRefused(await debt.apply(payment('1', 'pi_late')), 'invalid_state');
  });

  it('settles a debt without a plan when a payment clears it, in KWD to the fils', async () => {
    const debt = await raiseLifecycleDebt({ currency: 'KWD', originalPrincipal: '10.005' });
    expectApplied(await debt.apply(payment('5.002', 'pi_a')));
    const cleared = expectApplied(await debt.apply(payment('5.003', 'pi_b')));
    expect(cleared.state).to.deep.equal({ status: 'Settled', plan: null, version: 2 });
    expect(await debt.debt()).to.include({ status: 'Settled', outstandingPrincipal: 0, plan: null });
  });
});
