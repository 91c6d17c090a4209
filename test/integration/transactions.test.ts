import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  recordTransaction,
  type NewTransaction,
  type Transaction as RecordedTransaction,
} from '../../core/debts/transactions';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';

type Transaction = Record<string, unknown> & { id: string; amount: number };
type Page = { data: Transaction[]; nextCursor: string | null };

describe('Transactions and payments: GET /v1/transactions, GET /v1/payments', () => {
  const ctx = useApiSuite();

  function record(debtId: string, input: Partial<NewTransaction>): Promise<RecordedTransaction> {
    return recordTransaction(testDb(), ctx.tenant.organization.id, {
      debtId,
      direction: 'Inbound',
      status: 'Succeeded',
      type: 'Payment',
      amount: '10',
      ...input,
    });
  }

  it('lists every transaction newest first, in all directions and statuses, with exact amounts', async () => {
    const debtId = (await raiseDebt(ctx.api)).id;
    const paid = await record(debtId, { amount: 0.1, processorReference: 'pi_1' });
    const failed = await record(debtId, { amount: '0.2', status: 'Failed' });
    const refund = await record(debtId, { amount: '0.3', direction: 'Outbound', type: 'Refund' });
    const res = await ctx.api<Page>('GET', '/v1/transactions');
    expect(res.status).to.equal(200);
    expect(res.body.data.map((t) => t.id)).to.deep.equal([refund.id, failed.id, paid.id]);
    expect(res.body.data[2]).to.deep.equal({
      id: paid.id,
      debtId,
      direction: 'Inbound',
      status: 'Succeeded',
      type: 'Payment',
      amount: 0.1,
      currency: 'AUD',
      processorReference: 'pi_1',
      createdAt: paid.createdAt,
    });
    expect(res.text).to.contain('"amount":0.3,').and.to.contain('"amount":0.2,').and.to.contain('"amount":0.1,');
  });

  it('lists as payments only the Inbound and Succeeded transactions', async () => {
    const debtId = (await raiseDebt(ctx.api)).id;
    const payment = await record(debtId, { amount: '25.5' });
    await record(debtId, { status: 'Pending' });
    await record(debtId, { status: 'Failed' });
    await record(debtId, { direction: 'Outbound', type: 'Remittance' });
    const second = await record(debtId, { amount: '74.5' });
    const res = await ctx.api<Page>('GET', '/v1/payments');
    expect(res.body.data.map((t) => [t.id, t.amount])).to.deep.equal([
      [second.id, 74.5],
      [payment.id, 25.5],
    ]);
  });

  it('filters both lists by debtId, and an unknown debtId matches nothing', async () => {
    const one = (await raiseDebt(ctx.api)).id;
    const two = (await raiseDebt(ctx.api)).id;
    const a = await record(one, {});
    const b = await record(two, {});
    for (const path of ['/v1/transactions', '/v1/payments']) {
      expect((await ctx.api<Page>('GET', `${path}?debtId=${one}`)).body.data.map((t) => t.id)).to.deep.equal([a.id]);
      expect((await ctx.api<Page>('GET', `${path}?debtId=${two}`)).body.data.map((t) => t.id)).to.deep.equal([b.id]);
      expect((await ctx.api<Page>('GET', `${path}?debtId=${randomUUID()}`)).body).to.deep.equal({
        data: [],
        nextCursor: null,
      });
      for (const malformed of ['nope', `urn:uuid:${one}`, `{${one}}`, one.replace(/-/g, '')]) {
        const problem = expectProblem(await ctx.api('GET', `${path}?debtId=${malformed}`), 400, 'invalid_request');
        expect(problem.errors, malformed).to.deep.equal([{ path: 'query.debtId', message: 'must be a UUID' }]);
      }
    }
  });

  it('pages with cursors, and a payments cursor is not accepted by the transactions list', async () => {
    const debtId = (await raiseDebt(ctx.api)).id;
    const made = [];
    for (let i = 1; i <= 5; i += 1) made.push(await record(debtId, { amount: String(i) }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await ctx.api<Page>('GET', `/v1/payments?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      seen.push(...page.data.map((t) => t.id));
      cursor = page.nextCursor;
      if (cursor) expectProblem(await ctx.api('GET', `/v1/transactions?cursor=${cursor}`), 400, 'invalid_request');
    } while (cursor);
    expect(seen).to.deep.equal(made.map((t) => t.id).reverse());
  });

  it('records transactions in the debt’s currency with its precision', async () => {
    const debtId = (await raiseDebt(ctx.api, { currency: 'JPY', originalPrincipal: 50000 })).id;
    const yen = await record(debtId, { amount: 1500 });
    expect(yen).to.include({ currency: 'JPY', amount: 1500 });
    let failure: unknown;
    await record(debtId, { amount: '1500.5' }).catch((err: unknown) => (failure = err));
    expect(failure).to.have.property('code', 'invalid_request');
    expect(failure).to.have.nested.property('extra.errors[0].path', 'body.amount');
  });

  it('needs transactions:read and payments:read respectively', async () => {
    const onlyPayments = callerFor(
      ctx.server.baseUrl,
      await mintKey(ctx.tenant.organization.id, { scopes: ['payments:read'] }),
    );
    expectProblem(await onlyPayments('GET', '/v1/transactions'), 403, 'forbidden');
    expect((await onlyPayments('GET', '/v1/payments')).status).to.equal(200);
    const onlyTx = callerFor(
      ctx.server.baseUrl,
      await mintKey(ctx.tenant.organization.id, { scopes: ['transactions:read'] }),
    );
    expectProblem(await onlyTx('GET', '/v1/payments'), 403, 'forbidden');
    expect((await onlyTx('GET', '/v1/transactions')).status).to.equal(200);
  });
});
