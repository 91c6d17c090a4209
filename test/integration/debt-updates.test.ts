import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';

describe('PATCH /v1/debts/{id}', () => {
  const ctx = useApiSuite();

  it('changes externalAccountId and clientReference, bumping updatedAt', async () => {
    const debt = await raiseDebt(ctx.api, { clientReference: 'OLD' });
    const res = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, {
      externalAccountId: 'ACCT-NEW',
      clientReference: '',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ externalAccountId: 'ACCT-NEW', clientReference: null });
    expect(res.body.updatedAt > debt.updatedAt).to.equal(true);
    expect((await ctx.api('GET', `/v1/debts/${debt.id}`)).body).to.deep.equal(res.body);
  });

  it('moves the outstanding principal with the original while PendingAssignment', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 100 });
    // As if 40 had been paid already.
    await testDb()('debts').where({ id: debt.id }).update({ outstanding_principal: '60' });
    const res = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { originalPrincipal: '100.1' });
    expect(res.body).to.include({ originalPrincipal: 100.1, outstandingPrincipal: 60.1 });
    const tooLow = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { originalPrincipal: 40 });
    expectProblem(tooLow, 400, 'invalid_principal');
  });

  it('refuses a principal change outside PendingAssignment with invalid_state, but accepts the same value', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 100 });
    await testDb()('debts').where({ id: debt.id }).update({ status: 'Accepted' });
    expectProblem(await ctx.api('PATCH', `/v1/debts/${debt.id}`, { originalPrincipal: 120 }), 409, 'invalid_state');
    const same = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { originalPrincipal: '100.00' });
    expect(same.status).to.equal(200);
    expect(same.body.updatedAt).to.equal(debt.updatedAt);
  });

  it('recalls a debt with status Closed from a non-terminal state, and refuses it from a terminal one', async () => {
    const debt = await raiseDebt(ctx.api);
    const closed = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    expect(closed.body).to.include({ status: 'Closed' });
    const again = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    expect(again.status).to.equal(200);
    const settled = await raiseDebt(ctx.api);
    await testDb()('debts').where({ id: settled.id }).update({ status: 'Settled' });
    expectProblem(await ctx.api('PATCH', `/v1/debts/${settled.id}`, { status: 'Closed' }), 409, 'invalid_state');
    expectProblem(await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Settled' }), 400, 'invalid_request');
  });

  it('cancels an active plan when the debt is recalled', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 1200 });
    await testDb()('debts').where({ id: debt.id }).update({
      status: 'Active',
      plan_status: 'Active',
      plan_instalment_amount: '100',
      plan_frequency: 'Monthly',
      plan_instalment_count: 12,
      plan_instalments_paid: 2,
      plan_next_due_date: '2026-12-31',
    });
    const before = await ctx.api('GET', `/v1/debts/${debt.id}`);
    expect(before.body.plan).to.deep.equal({
      status: 'Active',
      instalmentAmount: 100,
      frequency: 'Monthly',
      instalmentCount: 12,
      instalmentsPaid: 2,
      nextDueDate: '2026-12-31',
    });
    const closed = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    expect(closed.body.status).to.equal('Closed');
    expect(closed.body.plan).to.include({ status: 'Cancelled', nextDueDate: null, instalmentsPaid: 2 });
  });

  it('answers missing_external_account_id for a blank one, 404 for unknown debts, and names unknown fields', async () => {
    const debt = await raiseDebt(ctx.api);
    expectProblem(
      await ctx.api('PATCH', `/v1/debts/${debt.id}`, { externalAccountId: '' }),
      400,
      'missing_external_account_id',
    );
    expectProblem(await ctx.api('PATCH', `/v1/debts/${randomUUID()}`, { clientReference: 'x' }), 404, 'not_found');
    const unknown = expectProblem(
      await ctx.api('PATCH', `/v1/debts/${debt.id}`, { currency: 'USD' }),
      400,
      'invalid_request',
    );
    expect(unknown.errors).to.deep.include({ path: 'body.currency', message: 'is not a recognised field' });
  });
});
