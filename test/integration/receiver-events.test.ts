/**
 * Events a receiver can act on, against the real lifecycle stack: `debt.updated` says what the
 * change replaced (`previousAttributes`), and a resolved dispute leaves its outcome on the debt (docs/lifecycle.md:
 * the reason is kept, the outcome and its time are set; a new dispute replaces the reason and clears the outcome).
 */
import { expect } from 'chai';
import { testDb } from '../support/resources';
import { useApiSuite } from '../support/api-suite';
import { raiseDebt, type Debt } from '../support/debt-api';

type Updated = { debt: Debt; previousAttributes: Record<string, unknown> };

describe('events a receiver can act on', function () {
  this.timeout(60_000);
  const ctx = useApiSuite({ mode: 'sandbox' });

  /** The data of the debt's `debt.updated` events, oldest first. */
  async function updatesOf(debtId: string): Promise<Updated[]> {
    const rows: { data: unknown }[] = await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id, type: 'debt.updated' })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId])
      .orderBy('seq')
      .select('data');
    return rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Updated);
  }

  async function simulate(id: string, action: string, body?: unknown): Promise<Debt> {
    const res = await ctx.api<Debt>('POST', `/v1/sandbox/debts/${id}/${action}`, body);
    expect(res.status, `${action}: ${res.text}`).to.equal(200);
    return res.body;
  }

  /** A debt disputed for `reason` and resolved with `outcome`, which the debt records with its time and the reason. */
  async function resolvedDispute(reason: string, outcome: 'Rejected' | 'Upheld'): Promise<Debt> {
    const debt = await raiseDebt(ctx.api);
    await simulate(debt.id, 'dispute', { reason });
    const resolved = await simulate(debt.id, 'dispute/resolve', { outcome: outcome.toLowerCase() });
    expect(resolved).to.include({
      disputeReason: reason,
      disputeOutcome: outcome,
      disputeResolvedAt: resolved.updatedAt,
    });
    return resolved;
  }

  it('debt.updated of an amendment lists the changed fields with their old values, not updatedAt', async () => {
    const debt = await raiseDebt(ctx.api, { clientReference: 'LOAN-1', metadata: { crm: 'a' } });
    const patched = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, {
      clientReference: 'LOAN-2',
      externalAccountId: debt.externalAccountId, // unchanged: not listed
      metadata: { crm: 'b' },
    });
    const [update] = await updatesOf(debt.id);
    expect(update!.debt).to.deep.equal(patched.body);
    expect(update!.previousAttributes).to.deep.equal({ clientReference: 'LOAN-1', metadata: { crm: 'a' } });
  });

  it('debt.updated of a lifecycle change lists the old status (and plan)', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 400 });
    await simulate(debt.id, 'accept');
    const active = await simulate(debt.id, 'plan', {
      instalmentCount: 2,
      frequency: 'Weekly',
      firstDueDate: new Date().toISOString().slice(0, 10),
    });
    const [accepted, planned] = await updatesOf(debt.id);
    expect(accepted!.previousAttributes).to.deep.equal({ status: 'PendingAssignment' });
    expect(planned!.previousAttributes).to.deep.equal({ status: 'Accepted', plan: null });
    expect(planned!.debt).to.deep.equal(active);
  });

  it('a rejected dispute keeps its reason and records Rejected; a new dispute replaces both', async () => {
    const rejected = await resolvedDispute('Not mine.', 'Rejected');
    expect(rejected.status).to.equal('PendingAssignment');
    const debt = rejected;
    const again = await simulate(debt.id, 'dispute', { reason: 'Paid in March.' });
    expect(again).to.include({ disputeReason: 'Paid in March.', disputeOutcome: null, disputeResolvedAt: null });

    const [disputed, resolved, disputedAgain] = await updatesOf(debt.id);
    expect(disputed!.previousAttributes).to.deep.equal({ status: 'PendingAssignment', disputeReason: null });
    expect(resolved!.previousAttributes).to.deep.equal({
      status: 'Disputed',
      disputeOutcome: null,
      disputeResolvedAt: null,
    });
    expect(disputedAgain!.previousAttributes).to.deep.equal({
      status: 'PendingAssignment',
      disputeReason: 'Not mine.',
      disputeOutcome: 'Rejected',
      disputeResolvedAt: rejected.updatedAt,
    });
  });

  it('an upheld dispute writes the debt off with the outcome Upheld', async () => {
    const upheld = await resolvedDispute('Refunded by the merchant.', 'Upheld');
    expect(upheld.status).to.equal('WrittenOff');
  });
});
