/**
 * Lookups a client needs: debts by their own account number and reference and by creation time,
 * transactions by status, type and direction, and one event or transaction by id; always within the caller's
 * organisation (another tenant's matching rows never appear, their ids are 404).
 */
import { expect } from 'chai';
import { recordTransaction } from '../../core/debts/transactions';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

type Page<T> = { data: T[]; nextCursor: string | null };
type Txn = { id: string; debtId: string; status: string; type: string; direction: string };
type Evt = { id: string; type: string; data: { debt?: Debt } };

describe('lookups: list filters and reads by id', function () {
  this.timeout(30_000);
  const ctx = useApiSuite();

  const ids = (page: Page<{ id: string }>) => page.data.map((item) => item.id);

  it('filters debts by externalAccountId, clientReference and creation time, within the organisation', async () => {
    const first = await raiseDebt(ctx.api, { externalAccountId: 'ACCT-LOOKUP-1', clientReference: 'LOAN-1' });
    const second = await raiseDebt(ctx.api, { externalAccountId: 'ACCT-LOOKUP-2', clientReference: 'LOAN-2' });
    const other = await createTestTenant();
    await raiseDebt(callerFor(ctx.server.baseUrl, other), { externalAccountId: 'ACCT-LOOKUP-1' });

    const byAccount = await ctx.api<Page<Debt>>('GET', '/v1/debts?externalAccountId=ACCT-LOOKUP-1');
    expect(byAccount.status, byAccount.text).to.equal(200);
    expect(ids(byAccount.body)).to.deep.equal([first.id]);
    expect(ids((await ctx.api<Page<Debt>>('GET', '/v1/debts?clientReference=LOAN-2')).body)).to.deep.equal([second.id]);
    const both = await ctx.api<Page<Debt>>('GET', '/v1/debts?externalAccountId=ACCT-LOOKUP-1&clientReference=LOAN-2');
    expect(both.body.data).to.deep.equal([]);

    const createdAt = (debt: Debt) => encodeURIComponent(String(debt.createdAt));
    const after = await ctx.api<Page<Debt>>('GET', `/v1/debts?createdAfter=${createdAt(first)}`);
    expect(ids(after.body)).to.deep.equal([second.id]);
    const before = await ctx.api<Page<Debt>>('GET', `/v1/debts?createdBefore=${createdAt(second)}`);
    expect(ids(before.body)).to.deep.equal([first.id]);
    expectProblem(await ctx.api('GET', '/v1/debts?createdAfter=yesterday'), 400, 'invalid_request');
  });

  it('filters transactions by status, type and direction; a filter that contradicts /v1/payments matches none', async () => {
    const debt = await raiseDebt(ctx.api);
    const org = ctx.tenant.organization.id;
    const record = (status: 'Succeeded' | 'Failed', type: 'Payment' | 'Fee', direction: 'Inbound' | 'Outbound') =>
      recordTransaction(testDb(), org, { debtId: debt.id, status, type, direction, amount: '10.00' });
    const paid = await record('Succeeded', 'Payment', 'Inbound');
    const failed = await record('Failed', 'Payment', 'Inbound');
    const fee = await record('Succeeded', 'Fee', 'Outbound');

    const list = async (query: string) => ids((await ctx.api<Page<Txn>>('GET', `/v1/transactions?${query}`)).body);
    expect(await list('status=Failed')).to.deep.equal([failed.id]);
    expect(await list('type=Fee')).to.deep.equal([fee.id]);
    expect(await list('direction=Inbound')).to.deep.equal([failed.id, paid.id]);
    expect(await list('status=Succeeded&direction=Inbound')).to.deep.equal([paid.id]);
    const payments = async (query: string) => ids((await ctx.api<Page<Txn>>('GET', `/v1/payments?${query}`)).body);
    expect(await payments('')).to.deep.equal([paid.id]);
    expect(await payments('status=Failed')).to.deep.equal([]);
    expectProblem(await ctx.api('GET', '/v1/transactions?status=Pending-ish'), 400, 'invalid_request');
  });

  it('reads one transaction and one event by id; another organisation’s, or a malformed id, is 404', async () => {
    const debt = await raiseDebt(ctx.api);
    const txn = await recordTransaction(testDb(), ctx.tenant.organization.id, {
      debtId: debt.id,
      status: 'Succeeded',
      type: 'Payment',
      direction: 'Inbound',
      amount: '12.50',
    });
    const got = await ctx.api<Txn>('GET', `/v1/transactions/${txn.id}`);
    expect(got.status, got.text).to.equal(200);
    expect(got.body).to.deep.equal(txn);

    const events = await ctx.api<Page<Evt>>('GET', '/v1/events?type=debt.created');
    const listed = events.body.data.find((e) => e.data.debt?.id === debt.id)!;
    const event = await ctx.api<Evt>('GET', `/v1/events/${listed.id}`);
    expect(event.status, event.text).to.equal(200);
    expect(event.headers.get('content-type')).to.match(/^application\/json/);
    expect(event.body).to.deep.equal(listed);

    const other = callerFor(ctx.server.baseUrl, await createTestTenant());
    expectProblem(await other('GET', `/v1/transactions/${txn.id}`), 404, 'not_found');
    expectProblem(await other('GET', `/v1/events/${listed.id}`), 404, 'not_found');
    expectProblem(await ctx.api('GET', '/v1/events/not-an-event'), 404, 'not_found');
    expectProblem(await ctx.api('GET', '/v1/transactions/not-a-uuid'), 404, 'not_found');
  });
});
