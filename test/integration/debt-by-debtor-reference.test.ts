/**
 * Raising a debt by the `debtorReferenceId` of an existing debtor needs no other debtor field; a
 * reference alone that none of the organisation's debtors has is `missing_debtor`, naming what a new debtor needs.
 */
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { createTestTenant } from '../support/tenants';

describe('raising a debt for a debtor named by its reference', function () {
  this.timeout(30_000);
  const ctx = useApiSuite();

  it('uses the organisation’s debtor of that reference; another organisation’s is not found', async () => {
    const first = await raiseDebt(ctx.api, { debtorReferenceId: 'DBR-REF-ONLY' });
    const second = await ctx.api<Debt>('POST', '/v1/debts', {
      debtorReferenceId: 'DBR-REF-ONLY',
      originalPrincipal: 99.5,
      externalAccountId: 'ACCT-REF-ONLY-2',
    });
    expect(second.status, second.text).to.equal(201);
    expect(second.body.debtorId).to.equal(first.debtorId);

    const other = callerFor(ctx.server.baseUrl, await createTestTenant());
    const refused = await other('POST', '/v1/debts', {
      debtorReferenceId: 'DBR-REF-ONLY',
      originalPrincipal: 10,
      externalAccountId: 'ACCT-X',
    });
    const problem = expectProblem(refused, 400, 'missing_debtor') as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).to.include.members(['body.debtorFirstName', 'body.debtorLastName']);
  });
});
