import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, inlineDebtBody, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';
import { foundRow } from '../support/rows';

describe('Debts: POST, GET and list /v1/debts', () => {
  const ctx = useApiSuite();

  describe('raising a debt', () => {
    it('raises a debt with an inline debtor: 201, Location, PendingAssignment, AUD by default', async () => {
      const body = inlineDebtBody({ clientReference: 'INV-42' });
      const res = await ctx.api<Debt>('POST', '/v1/debts', body);
      expect(res.status).to.equal(201);
      expect(res.headers.get('location')).to.equal(`/v1/debts/${res.body.id}`);
      expect(res.body).to.include({
        externalAccountId: body.externalAccountId,
        clientReference: 'INV-42',
        originalPrincipal: 1250.5,
        outstandingPrincipal: 1250.5,
        currency: 'AUD',
        status: 'PendingAssignment',
        disputeReason: null,
        plan: null,
      });
      expect(Object.keys(res.body).sort()).to.deep.equal(
        [
          'id',
          'debtorId',
          'externalAccountId',
          'clientReference',
          'originalPrincipal',
          'outstandingPrincipal',
          'currency',
          'status',
          'disputeReason',
          'disputeOutcome',
          'disputeResolvedAt',
          'plan',
          'metadata',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
      expect(res.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const debtor = await ctx.api('GET', `/v1/debtors/${res.body.debtorId}`);
      expect(debtor.body).to.include({
        referenceId: body.debtorReferenceId,
        firstName: 'Ava',
        lastName: 'Harris',
        email: body.debtorEmail,
        phone: null,
      });
    });

    it('raises a debt against an existing debtor by debtorId', async () => {
      const debtor = await ctx.api('POST', '/v1/debtors', {
        referenceId: 'DBR-BY-ID',
        firstName: 'Ben',
        lastName: 'Singh',
        phone: '+61412345678',
      });
      expect(debtor.status).to.equal(201);
      const res = await ctx.api<Debt>('POST', '/v1/debts', {
        debtorId: debtor.body.id,
        originalPrincipal: '4800',
        externalAccountId: 'ACCT-0002',
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.debtorId).to.equal(debtor.body.id);
      expect(res.body.originalPrincipal).to.equal(4800);
    });

    it('reuses the debtor of an inline debtorReferenceId already in use, leaving its details as they were', async () => {
      const first = await raiseDebt(ctx.api, { debtorReferenceId: 'DBR-REUSE', debtorPhone: '+61400000001' });
      const second = await raiseDebt(ctx.api, {
        debtorReferenceId: 'DBR-REUSE',
        debtorFirstName: 'Someone',
        debtorLastName: 'Else',
      });
      expect(second.debtorId).to.equal(first.debtorId);
      const list = await ctx.api<{ data: { firstName: string }[] }>('GET', '/v1/debtors?referenceId=DBR-REUSE');
      expect(list.body.data).to.have.length(1);
      expect(list.body.data[0]!.firstName).to.equal('Ava');
      const debts = await ctx.api<{ data: Debt[] }>('GET', `/v1/debts?debtorId=${first.debtorId}`);
      expect(debts.body.data.map((d) => d.id)).to.deep.equal([second.id, first.id]);
    });

    it('accepts an inline debtor with a phone and no email', async () => {
      const debt = await raiseDebt(ctx.api, { debtorEmail: undefined, debtorPhone: '+6421555123' });
      const debtor = await ctx.api('GET', `/v1/debtors/${debt.debtorId}`);
      expect(debtor.body).to.include({ email: null, phone: '+6421555123' });
    });

    it('answers missing_debtor when neither form is sent, or the inline form is incomplete', async () => {
      const none = await ctx.api('POST', '/v1/debts', { originalPrincipal: 10, externalAccountId: 'A-1' });
      expectProblem(none, 400, 'missing_debtor');
      const partial = await ctx.api(
        'POST',
        '/v1/debts',
        inlineDebtBody({ debtorLastName: undefined, debtorEmail: '' }),
      );
      const problem = expectProblem(partial, 400, 'missing_debtor');
      expect(problem.errors).to.deep.equal([
        { path: 'body.debtorLastName', message: 'is required for an inline debtor' },
        { path: 'body.debtorEmail', message: 'debtorEmail or debtorPhone is required for an inline debtor' },
      ]);
    });

    it('refuses debtorId together with inline debtor fields', async () => {
      const res = await ctx.api('POST', '/v1/debts', inlineDebtBody({ debtorId: randomUUID() }));
      expectProblem(res, 400, 'invalid_request');
    });

    it('answers debtor_not_found (400) for an unknown debtorId, of any form', async () => {
      for (const debtorId of [randomUUID(), 'not-a-uuid']) {
        const res = await ctx.api('POST', '/v1/debts', { debtorId, originalPrincipal: 10, externalAccountId: 'A-1' });
        expectProblem(res, 400, 'debtor_not_found');
      }
    });

    it('answers missing_external_account_id when it is absent or blank, before any other body rule', async () => {
      for (const externalAccountId of [undefined, '', '   ']) {
        const res = await ctx.api('POST', '/v1/debts', inlineDebtBody({ externalAccountId, originalPrincipal: -1 }));
        expectProblem(res, 400, 'missing_external_account_id');
      }
    });

    it('answers invalid_principal for zero, negative, non-numeric, missing and over-precise principals', async () => {
      const cases: [unknown, string?][] = [
        [0],
        [-10],
        ['abc'],
        [''],
        [undefined],
        [10.001],
        ['10.001'],
        [1250.5, 'JPY'],
        ['1.2345', 'BHD'],
        [1e15],
      ];
      for (const [originalPrincipal, currency] of cases) {
        const res = await ctx.api('POST', '/v1/debts', inlineDebtBody({ originalPrincipal, currency }));
        const problem = expectProblem(res, 400, 'invalid_principal');
        expect(problem.errors).to.have.length(1);
        expect((problem.errors as { path: string }[])[0]!.path).to.equal('body.originalPrincipal');
      }
    });

    it('judges a JSON number by the digits sent, even those JSON.parse would round away', async () => {
      const body = JSON.stringify(inlineDebtBody()).replace(
        '"originalPrincipal":1250.5',
        '"originalPrincipal":0.10000000000000000555',
      );
      expect(body).to.contain('0.10000000000000000555');
      expectProblem(await ctx.api('POST', '/v1/debts', body), 400, 'invalid_principal');
    });

    it('answers invalid_request naming the field for an unknown currency, and accepts JPY and BHD precisions', async () => {
      for (const currency of ['XYZ', 'aud']) {
        const problem = expectProblem(
          await ctx.api('POST', '/v1/debts', inlineDebtBody({ currency })),
          400,
          'invalid_request',
        );
        expect((problem.errors as { path: string }[]).map((e) => e.path)).to.include('body.currency');
      }
      const yen = await raiseDebt(ctx.api, { currency: 'JPY', originalPrincipal: 125000 });
      expect(yen).to.include({ currency: 'JPY', originalPrincipal: 125000 });
      const dinar = await ctx.api('POST', '/v1/debts', inlineDebtBody({ currency: 'BHD', originalPrincipal: '1.234' }));
      expect(dinar.text).to.contain('"originalPrincipal":1.234,"outstandingPrincipal":1.234');
    });

    it('rejects unknown body fields, naming them', async () => {
      const res = await ctx.api('POST', '/v1/debts', inlineDebtBody({ principal: 5 }));
      const problem = expectProblem(res, 400, 'invalid_request');
      expect(problem.errors).to.deep.include({ path: 'body.principal', message: 'is not a recognised field' });
    });

    it('stores money as exact NUMERIC and writes it back digit for digit', async () => {
      const body = JSON.stringify(inlineDebtBody()).replace(
        '"originalPrincipal":1250.5',
        '"originalPrincipal":12345678901.23',
      );
      const res = await ctx.api<Debt>('POST', '/v1/debts', body);
      expect(res.status, res.text).to.equal(201);
      expect(res.text).to.contain('"originalPrincipal":12345678901.23,"outstandingPrincipal":12345678901.23');
      const row = await foundRow(testDb()('debts').where({ id: res.body.id }).first('original_principal'), 'debt');
      expect(row.original_principal).to.equal('12345678901.2300');
      const read = await ctx.api('GET', `/v1/debts/${res.body.id}`);
      expect(read.text).to.equal(res.text);
    });

    it('raises one debt for a retried POST with the same Idempotency-Key', async () => {
      const body = inlineDebtBody();
      const key = `raise-${randomUUID()}`;
      const first = await ctx.api('POST', '/v1/debts', body, { 'idempotency-key': key });
      const again = await ctx.api('POST', '/v1/debts', body, { 'idempotency-key': key });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.text).to.equal(first.text);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      const list = await ctx.api<{ data: unknown[] }>('GET', '/v1/debts');
      expect(list.body.data).to.have.length(1);
    });

    it('never writes debtor contact data to the logs, errors included', async () => {
      const email = `secret.${randomUUID().slice(0, 8)}@example.com`;
      await raiseDebt(ctx.api, { debtorEmail: email, debtorPhone: '+61499887766' });
      await ctx.api('POST', '/v1/debts', inlineDebtBody({ debtorEmail: email, originalPrincipal: 'abc' }));
      await ctx.api('GET', `/v1/debtors?email=${encodeURIComponent(email)}`);
      expect(ctx.server.rawLog()).to.not.contain(email).and.to.not.contain('61499887766');
      expect(ctx.server.logLines().length).to.be.greaterThan(0);
    });

    it('needs debts:write, and refuses read-only keys', async () => {
      const reader = await mintKey(ctx.tenant.organization.id, { scopes: ['debts:read'] });
      expectProblem(
        await callerFor(ctx.server.baseUrl, reader)('POST', '/v1/debts', inlineDebtBody()),
        403,
        'forbidden',
      );
      const readOnly = await mintKey(ctx.tenant.organization.id, { readOnly: true });
      const res = await callerFor(ctx.server.baseUrl, readOnly)('POST', '/v1/debts', inlineDebtBody());
      expectProblem(res, 403, 'read_only_key');
    });
  });

  describe('reading debts', () => {
    it('reads a debt by id and answers 404 not_found for an unknown or malformed id', async () => {
      const debt = await raiseDebt(ctx.api);
      const res = await ctx.api('GET', `/v1/debts/${debt.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(debt);
      expectProblem(await ctx.api('GET', `/v1/debts/${randomUUID()}`), 404, 'not_found');
      expectProblem(await ctx.api('GET', '/v1/debts/nope'), 404, 'not_found');
    });

    it('lists debts newest first in pages, filtered by status and debtorId', async () => {
      const a = await raiseDebt(ctx.api);
      const b = await raiseDebt(ctx.api);
      const c = await raiseDebt(ctx.api, { debtorReferenceId: 'DBR-FILTER' });
      await testDb()('debts').where({ id: b.id }).update({ status: 'Accepted' });
      const first = await ctx.api<{ data: Debt[]; nextCursor: string }>('GET', '/v1/debts?limit=2');
      expect(first.body.data.map((d) => d.id)).to.deep.equal([c.id, b.id]);
      const second = await ctx.api<{ data: Debt[]; nextCursor: null }>(
        'GET',
        `/v1/debts?limit=2&cursor=${first.body.nextCursor}`,
      );
      expect(second.body).to.deep.equal({ data: [a], nextCursor: null });
      const accepted = await ctx.api<{ data: Debt[] }>('GET', '/v1/debts?status=Accepted');
      expect(accepted.body.data.map((d) => d.id)).to.deep.equal([b.id]);
      const byDebtor = await ctx.api<{ data: Debt[] }>('GET', `/v1/debts?debtorId=${c.debtorId}`);
      expect(byDebtor.body.data.map((d) => d.id)).to.deep.equal([c.id]);
    });

    it('rejects bad list parameters with invalid_request', async () => {
      for (const query of ['status=Open', 'debtorId=nope', 'limit=0', 'limit=201', 'cursor=%21%21', 'sort=asc']) {
        expectProblem(await ctx.api('GET', `/v1/debts?${query}`), 400, 'invalid_request');
      }
    });
  });
});
