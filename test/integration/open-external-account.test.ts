/**
 * One open debt per `externalAccountId` (docs/debts.md): a second open debt with the account is
 * `409 external_account_id_in_use` naming the open one, writing nothing; once the first is finished (here recalled),
 * the account can be raised again. Another organisation's accounts are its own.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, inlineDebtBody, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('one open debt per externalAccountId', function () {
  this.timeout(30_000);
  const ctx = useApiSuite();

  const eventCount = async (): Promise<number> => {
    const [row] = await testDb()('events').where({ organization_id: ctx.tenant.organization.id }).count({ n: '*' });
    return Number(row?.n);
  };

  it('refuses a second open debt with 409, naming the open one and writing nothing', async () => {
    const account = `ACCT-${randomUUID().slice(0, 8)}`;
    const first = await raiseDebt(ctx.api, { externalAccountId: account });
    const eventsBefore = await eventCount();

    const second = inlineDebtBody({ externalAccountId: account });
    const refused = await ctx.api('POST', '/v1/debts', second);
    const problem = expectProblem(refused, 409, 'external_account_id_in_use');
    expect(problem.existingDebtId).to.equal(first.id);
    expect(problem.errors).to.deep.equal([
      { path: 'body.externalAccountId', message: 'is the account of an open debt' },
    ]);
    // The inline debtor the refused request named was not created, and no event was recorded.
    const debtors = await testDb()('debtors').where({
      organization_id: ctx.tenant.organization.id,
      reference_id: String(second.debtorReferenceId),
    });
    expect(debtors).to.have.length(0);
    expect(await eventCount()).to.equal(eventsBefore);

    // By the existing debtor too.
    const byId = await ctx.api('POST', '/v1/debts', {
      debtorId: first.debtorId,
      originalPrincipal: 5,
      externalAccountId: account,
    });
    expectProblem(byId, 409, 'external_account_id_in_use');
  });

  it('lets another organisation use the same account reference', async () => {
    const account = `ACCT-${randomUUID().slice(0, 8)}`;
    await raiseDebt(ctx.api, { externalAccountId: account });
    const other = callerFor(ctx.server.baseUrl, await createTestTenant());
    await raiseDebt(other, { externalAccountId: account });
  });

  it('takes the account again once its debt is finished (recalled)', async () => {
    const account = `ACCT-${randomUUID().slice(0, 8)}`;
    const first = await raiseDebt(ctx.api, { externalAccountId: account });
    const closed = await ctx.api<Debt>('PATCH', `/v1/debts/${first.id}`, { status: 'Closed' });
    expect(closed.status, closed.text).to.equal(200);
    const again = await raiseDebt(ctx.api, { externalAccountId: account });
    expect(again.id).not.to.equal(first.id);
    // And the recalled debt can still be given its own account back: it is finished, so it holds nothing.
    const list = await ctx.api<{ data: Debt[] }>('GET', `/v1/debts?externalAccountId=${account}`);
    expect(list.body.data.map((d) => d.id)).to.have.members([first.id, again.id]);
  });

  it('refuses moving an open debt onto an account another open debt holds', async () => {
    const held = await raiseDebt(ctx.api);
    const moving = await raiseDebt(ctx.api);
    const refused = await ctx.api('PATCH', `/v1/debts/${moving.id}`, { externalAccountId: held.externalAccountId });
    expect(expectProblem(refused, 409, 'external_account_id_in_use').existingDebtId).to.equal(held.id);
    // Sending a debt's own account back is no change.
    const same = await ctx.api('PATCH', `/v1/debts/${held.id}`, { externalAccountId: held.externalAccountId });
    expect(same.status, same.text).to.equal(200);
  });

  it('lets only one of many concurrent requests raise the account', async () => {
    const account = `ACCT-${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => ctx.api('POST', '/v1/debts', inlineDebtBody({ externalAccountId: account }))),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await testDb()('debts').where({
      organization_id: ctx.tenant.organization.id,
      external_account_id: account,
    });
    expect(rows).to.have.length(1);
  });
});
