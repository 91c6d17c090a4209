/**
 * The debtor portal's own reads of a debt (core/portal/debt-reads.ts): named statements that select only what the
 * pages show. They must read what the API's `Debt` and `Transaction` say, and never another organisation's rows.
 */
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { createDebt } from '../../core/debts/debt-creation';
import { listTransactions, recordTransaction } from '../../core/debts/transactions';
import {
  PORTAL_TRANSACTIONS_SHOWN,
  readCreditorName,
  readPortalDebt,
  readPortalTransactions,
} from '../../core/portal/debt-reads';
import { newId } from '../../core/platform/ids';
import { inlineDebtBody } from '../support/debt-api';
import { testDb } from '../support/resources';

async function organisationWithDebt(name: string) {
  const organization = await createOrganization(testDb(), { name, mode: 'production' });
  const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, inlineDebtBody()));
  return { organizationId: organization.id, debt };
}

describe('the debtor portal’s reads of a debt', () => {
  it('reads the debt as the API shows it, amounts as exact decimals without padding', async () => {
    const { organizationId, debt } = await organisationWithDebt('Portal Reads Org');
    const read = await readPortalDebt(testDb(), organizationId, debt.id);
    expect(read).to.deep.equal({
      status: debt.status,
      currency: debt.currency,
      originalPrincipal: '1250.5',
      outstandingPrincipal: '1250.5',
      externalAccountId: debt.externalAccountId,
      disputeReason: null,
      plan: null,
      schedule: [],
    });
    expect(await readCreditorName(testDb(), organizationId)).to.equal('Portal Reads Org');
  });

  it('lists the debt’s transactions newest first, as many as a page shows, with their UTC day', async () => {
    const { organizationId, debt } = await organisationWithDebt('Portal Reads Org');
    const other = await testDb().transaction((trx) => createDebt(trx, organizationId, inlineDebtBody()));
    for (let i = 0; i < PORTAL_TRANSACTIONS_SHOWN + 2; i++) {
      const amount = `${i + 1}.5`;
      await recordTransaction(testDb(), organizationId, {
        debtId: debt.id,
        direction: 'Inbound',
        status: 'Succeeded',
        type: 'Payment',
        amount,
      });
    }
    await recordTransaction(testDb(), organizationId, {
      debtId: other.id,
      direction: 'Inbound',
      status: 'Failed',
      type: 'Payment',
      amount: 9,
    });
    const read = await readPortalTransactions(testDb(), organizationId, debt.id);
    const api = await listTransactions(testDb(), organizationId, {
      debtId: debt.id,
      page: { limit: PORTAL_TRANSACTIONS_SHOWN },
    });
    expect(read).to.have.length(PORTAL_TRANSACTIONS_SHOWN);
    expect(read.map((t) => Number(t.amount))).to.deep.equal(api.data.map((t) => t.amount));
    expect(read.map((t) => t.day)).to.deep.equal(api.data.map((t) => t.createdAt.slice(0, 10)));
    expect(
      read.every((t) => t.type === 'Payment' && t.status === 'Succeeded' && t.currency === debt.currency),
    ).to.equal(true);
  });

  it('finds nothing of another organisation’s debt, nor for an id that is not one', async () => {
    const mine = await organisationWithDebt('Portal Reads Mine');
    const theirs = await organisationWithDebt('Portal Reads Theirs');
    await recordTransaction(testDb(), theirs.organizationId, {
      debtId: theirs.debt.id,
      direction: 'Inbound',
      status: 'Succeeded',
      type: 'Payment',
      amount: 10,
    });
    expect(await readPortalDebt(testDb(), mine.organizationId, theirs.debt.id)).to.equal(undefined);
    expect(await readPortalTransactions(testDb(), mine.organizationId, theirs.debt.id)).to.deep.equal([]);
    expect(await readPortalDebt(testDb(), mine.organizationId, 'not-a-uuid')).to.equal(undefined);
    expect(await readCreditorName(testDb(), newId())).to.equal(undefined);
  });
});
