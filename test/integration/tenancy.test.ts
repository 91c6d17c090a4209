import { expect } from 'chai';
import { newId } from '../../core/platform/ids';
import { recordTransaction } from '../../core/debts/transactions';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, expectProblem, inlineDebtBody, type Caller } from '../support/debt-api';
import { testDb } from '../support/resources';
import { createTestTenant, type TestTenant } from '../support/tenants';

type Resource = Record<string, unknown> & { id: string };
type Page = { data: Resource[]; nextCursor: string | null };

const ROUTES_UNDER_TEST = [
  'get /v1/debts',
  'get /v1/debts/{id}',
  'post /v1/debts',
  'patch /v1/debts/{id}',
  'get /v1/debtors',
  'get /v1/debtors/{id}',
  'post /v1/debtors',
  'patch /v1/debtors/{id}',
  'get /v1/transactions',
  'get /v1/payments',
  'get /v1/organization/branding',
  'patch /v1/organization/branding',
];

describe('Tenancy: one organisation never reads, lists, changes or references another’s resources', () => {
  let server: TestServer;
  let mine: TestTenant;
  let theirs: TestTenant;
  let me: Caller;
  let them: Caller;
  let theirDebt: Resource;
  let theirDebtor: Resource;
  const exercised = new Set<string>();

  before(async () => {
    server = await startTestServer();
    mine = await createTestTenant({ name: 'Mine' });
    theirs = await createTestTenant({ name: 'Theirs' });
    const call = callerFor(server.baseUrl, mine);
    me = async (method, path, body, headers) => {
      const route = server.built.routes.find(
        (r) =>
          r.method === method.toLowerCase() &&
          new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`).test(path),
      );
      if (route) exercised.add(`${route.method} ${route.path}`);
      return call(method, path, body, headers);
    };
    them = callerFor(server.baseUrl, theirs);
    theirDebt = (
      await them<Resource>(
        'POST',
        '/v1/debts',
        inlineDebtBody({ debtorReferenceId: 'SHARED-REF', debtorEmail: 'their.debtor@example.com' }),
      )
    ).body;
    theirDebtor = (await them<Resource>('GET', `/v1/debtors/${theirDebt.debtorId as string}`)).body;
    for (const status of ['Succeeded', 'Pending'] as const) {
      await recordTransaction(testDb(), theirs.organization.id, {
        debtId: theirDebt.id,
        direction: 'Inbound',
        status,
        type: 'Payment',
        amount: '10',
      });
    }
    await them('PATCH', '/v1/organization/branding', { primaryColor: '#123456', brandTagline: 'Theirs' });
  });
  after(async () => {
    await server.close();
  });

  it('answers 404 not_found for the other organisation’s debt on GET and PATCH, and leaves it unchanged', async () => {
    expectProblem(await me('GET', `/v1/debts/${theirDebt.id}`), 404, 'not_found');
    expectProblem(await me('PATCH', `/v1/debts/${theirDebt.id}`, { status: 'Closed' }), 404, 'not_found');
    expect((await them('GET', `/v1/debts/${theirDebt.id}`)).body).to.deep.equal(theirDebt);
  });

  it('answers debtor_not_found when a debt names the other organisation’s debtor', async () => {
    const res = await me('POST', '/v1/debts', {
      debtorId: theirDebtor.id,
      originalPrincipal: 5,
      externalAccountId: 'A-1',
    });
    expectProblem(res, 400, 'debtor_not_found');
  });

  it('gives an inline debtor its own debtor even when the other organisation uses the same referenceId', async () => {
    const res = await me<Resource>('POST', '/v1/debts', inlineDebtBody({ debtorReferenceId: 'SHARED-REF' }));
    expect(res.status).to.equal(201);
    expect(res.body.debtorId).to.not.equal(theirDebtor.id);
    const created = await me('POST', '/v1/debtors', {
      referenceId: 'SHARED-REF-2',
      firstName: 'A',
      lastName: 'B',
      phone: '+61400000009',
    });
    expect(created.status).to.equal(201);
  });

  it('keeps the other organisation’s debts out of every debt list and filter', async () => {
    const all = await me<Page>('GET', '/v1/debts?limit=200');
    expect(all.body.data.map((d) => d.id)).to.not.include(theirDebt.id);
    expect(all.body.data.every((d) => d.debtorId !== theirDebtor.id)).to.equal(true);
    expect((await me<Page>('GET', `/v1/debts?debtorId=${theirDebtor.id}`)).body).to.deep.equal({
      data: [],
      nextCursor: null,
    });
    const theirPage = await them<Page>('GET', '/v1/debts?limit=1');
    expect(theirPage.body.data).to.have.length(1);
  });

  it('answers 404 for the other organisation’s debtor on GET and PATCH, and keeps it out of lists', async () => {
    expectProblem(await me('GET', `/v1/debtors/${theirDebtor.id}`), 404, 'not_found');
    expectProblem(await me('PATCH', `/v1/debtors/${theirDebtor.id}`, { firstName: 'Mallory' }), 404, 'not_found');
    expect((await them('GET', `/v1/debtors/${theirDebtor.id}`)).body).to.deep.equal(theirDebtor);
    const all = await me<Page>('GET', '/v1/debtors?limit=200');
    expect(all.body.data.map((d) => d.id)).to.not.include(theirDebtor.id);
    const byRef = await me<Page>('GET', '/v1/debtors?referenceId=SHARED-REF');
    expect(byRef.body.data.map((d) => d.id)).to.not.include(theirDebtor.id);
    expect(byRef.body.data).to.have.length(1);
    const byEmail = await me<Page>('GET', '/v1/debtors?email=their.debtor%40example.com');
    expect(byEmail.body).to.deep.equal({ data: [], nextCursor: null });
  });

  it('keeps the other organisation’s transactions and payments out of both lists, filtered or not', async () => {
    for (const path of ['/v1/transactions', '/v1/payments']) {
      const theirList = await them<Page>('GET', path);
      expect(theirList.body.data.length).to.be.greaterThan(0);
      expect((await me<Page>('GET', path)).body).to.deep.equal({ data: [], nextCursor: null });
      expect((await me<Page>('GET', `${path}?debtId=${theirDebt.id}`)).body).to.deep.equal({
        data: [],
        nextCursor: null,
      });
    }
  });

  it('ignores where another organisation’s cursor points: it pages only the caller’s own rows', async () => {
    await them('POST', '/v1/debts', inlineDebtBody());
    const theirFirst = await them<Page>('GET', '/v1/debts?limit=1');
    const mineWithTheirCursor = await me<Page>('GET', `/v1/debts?cursor=${theirFirst.body.nextCursor}`);
    expect(mineWithTheirCursor.status).to.equal(200);
    expect(mineWithTheirCursor.body.data.map((d) => d.id)).to.not.include(theirDebt.id);
  });

  it('reads and changes only the caller’s own branding', async () => {
    const before = await me<Record<string, unknown>>('GET', '/v1/organization/branding');
    expect(before.body).to.include({ primaryColor: null, brandTagline: null });
    const patched = await me('PATCH', '/v1/organization/branding', { primaryColor: '#654321' });
    expect(patched.body).to.include({ primaryColor: '#654321', brandTagline: null });
    const theirBranding = await them('GET', '/v1/organization/branding');
    expect(theirBranding.body).to.include({ primaryColor: '#123456', brandTagline: 'Theirs' });
  });

  it('is enforced by the database too: a debt cannot be stored against another organisation’s debtor', async () => {
    const insert = testDb()('debts').insert({
      id: newId(),
      organization_id: mine.organization.id,
      debtor_id: theirDebtor.id,
      external_account_id: 'A-1',
      original_principal: '1',
      outstanding_principal: '1',
      currency: 'AUD',
      status: 'PendingAssignment',
    });
    const err = await insert.then(
      () => undefined,
      (e: { code?: string }) => e,
    );
    expect(err).to.have.property('code', '23503'); // foreign_key_violation on (organization_id, debtor_id)
  });

  it('exercised every route this suite guards', () => {
    const mineRoutes = server.built.routes
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => ROUTES_UNDER_TEST.includes(r));
    expect(mineRoutes.sort()).to.deep.equal([...ROUTES_UNDER_TEST].sort());
    expect([...exercised].sort()).to.deep.equal([...ROUTES_UNDER_TEST].sort());
  });
});
