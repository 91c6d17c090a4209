import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { applyLifecycleChange, loadLifecycleState, recordLifecycleInput } from '../../core/lifecycle/apply-change';
import { testDb } from '../support/resources';
import {
  expectApplied,
  expectRefused,
  monthlyPlan,
  raiseLifecycleDebt,
  type LifecycleDebt,
  planScheduleOf,
} from '../support/lifecycle';

async function disputeWith(debt: LifecycleDebt, reason: string) {
  const reasonId = await recordLifecycleInput(testDb(), debt.organizationId, debt.debtId, 'disputeReason', { reason });
  return debt.apply({ kind: 'dispute', reasonId });
}

describe('Lifecycle changes: one transaction with the row, its version and its events', () => {
  it('accepts a debt: Accepted, version 1, debt.accepted then debt.updated carrying the debt as the API returns it', async () => {
    const debt = await raiseLifecycleDebt();
    const result = expectApplied(await debt.apply({ kind: 'accept' }));
    expect(result.state).to.deep.equal({ status: 'Accepted', plan: null, version: 1 });
    const current = await debt.debt();
    expect(current.status).to.equal('Accepted');
    const events = await debt.events();
    expect(events.map((e) => e.type)).to.deep.equal(['debt.accepted', 'debt.updated']);
    expect(events.map((e) => e.data)).to.deep.equal([
      { debt: current },
      { debt: current, previousAttributes: { status: 'PendingAssignment' } },
    ]);
    expect(await loadLifecycleState(testDb(), debt.debtId)).to.deep.equal({
      organizationId: debt.organizationId,
      state: result.state,
    });
  });

  it('answers duplicate to the same expectedVersion applied again, writing nothing', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }, 0));
    const before = await debt.snapshot();
    const again = await debt.apply({ kind: 'accept' }, 0);
    expect(again).to.deep.equal({ outcome: 'duplicate', state: { status: 'Accepted', plan: null, version: 1 } });
    expect(await debt.snapshot()).to.deep.equal(before);
  });

  it('refuses a transition the state does not allow with invalid_state, writing nothing', async () => {
    const debt = await raiseLifecycleDebt();
    const before = await debt.snapshot();
    const detail = expectRefused(await debt.apply(monthlyPlan(3)), 'invalid_state');
    expect(detail).to.equal('Agreeing a plan is not allowed while the debt is PendingAssignment.');
    expectRefused(await debt.apply({ kind: 'resolveDispute', outcome: 'upheld' }), 'invalid_state');
    expectRefused(await debt.apply({ kind: 'default', instalmentIndex: 0 }), 'invalid_state');
    expect(await debt.snapshot()).to.deep.equal(before);
    expect((await loadLifecycleState(testDb(), debt.debtId))?.state.version).to.equal(0);
  });

  it('throws for a version the row is not at or a debt that does not exist; the activity makes them non-retryable', async () => {
    const debt = await raiseLifecycleDebt();
    const mismatch = await debt.apply({ kind: 'accept' }, 5).catch((err: Error) => err);
    expect(mismatch).to.include({ name: 'LifecycleIntegrityError', type: 'LifecycleVersionMismatch' });
    expect((mismatch as Error).message).to.contain('is at lifecycle version 0');

    const activities = createDebtLifecycleActivities({ db: testDb() });
    const missing = randomUUID();
    const applyMissing = await activities
      .applyDebtLifecycleChange({ debtId: missing, expectedVersion: 0, change: { kind: 'accept' } })
      .catch((err: unknown) => err);
    expect(applyMissing).to.be.instanceOf(ApplicationFailure).and.include({ type: 'DebtNotFound', nonRetryable: true });
    const loadMissing = await activities.loadDebtLifecycle(missing).catch((err: unknown) => err);
    expect(loadMissing).to.be.instanceOf(ApplicationFailure).and.include({ type: 'DebtNotFound', nonRetryable: true });
    const stale = await activities
      .applyDebtLifecycleChange({ debtId: debt.debtId, expectedVersion: 3, change: { kind: 'accept' } })
      .catch((err: unknown) => err);
    expect(stale).to.include({ type: 'LifecycleVersionMismatch', nonRetryable: true });
    expect(await activities.loadDebtLifecycle(debt.debtId)).to.deep.equal({
      organizationId: debt.organizationId,
      state: { status: 'PendingAssignment', plan: null, version: 0 },
    });
  });

  it('disputes with the reason from lifecycle_inputs, cancels the running plan, and emits debt.disputed then debt.updated', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    expectApplied(await debt.apply(monthlyPlan(3)));
    const before = await debt.debt();
    const result = expectApplied(await disputeWith(debt, 'I never had this account.'));
    expect(result.state.status).to.equal('Disputed');
    expect(result.state.plan?.status).to.equal('Cancelled');
    const current = await debt.debt();
    expect(current).to.include({ status: 'Disputed', disputeReason: 'I never had this account.' });
    expect(current.plan).to.include({ status: 'Cancelled', nextDueDate: null, instalmentsPaid: 0 });
    const events = (await debt.events()).slice(-2);
    expect(events.map((e) => [e.type, e.data])).to.deep.equal([
      ['debt.disputed', { debt: current }],
      [
        'debt.updated',
        { debt: current, previousAttributes: { status: 'Active', disputeReason: null, plan: before.plan } },
      ],
    ]);
  });

  it('fails for good when the dispute reason was never recorded for this debt', async () => {
    const debt = await raiseLifecycleDebt();
    const other = await raiseLifecycleDebt();
    const foreign = await recordLifecycleInput(testDb(), other.organizationId, other.debtId, 'disputeReason', {
      reason: 'not yours',
    });
    const failure = await debt.apply({ kind: 'dispute', reasonId: foreign }).catch((err: Error) => err);
    expect(failure).to.include({ type: 'LifecycleInputNotFound' });
    expect((await debt.debt()).status).to.equal('PendingAssignment');
  });

  it('resolves a dispute against the debtor (PendingAssignment) or upholds it (WrittenOff), with debt.updated only', async () => {
    const rejected = await raiseLifecycleDebt();
    expectApplied(await disputeWith(rejected, 'Paid already.'));
    const back = expectApplied(await rejected.apply({ kind: 'resolveDispute', outcome: 'rejected' }));
    expect(back.state).to.deep.equal({ status: 'PendingAssignment', plan: null, version: 2 });
    const current = await rejected.debt();
    expect(current).to.include({ disputeReason: 'Paid already.', disputeOutcome: 'Rejected' });
    expect((await rejected.events()).slice(2).map((e) => [e.type, e.data])).to.deep.equal([
      [
        'debt.updated',
        { debt: current, previousAttributes: { status: 'Disputed', disputeOutcome: null, disputeResolvedAt: null } },
      ],
    ]);

    const upheld = await raiseLifecycleDebt();
    expectApplied(await disputeWith(upheld, 'Identity theft.'));
    expectApplied(await upheld.apply({ kind: 'resolveDispute', outcome: 'upheld' }));
    expect(await upheld.debt()).to.include({
      status: 'WrittenOff',
      disputeReason: 'Identity theft.',
      disputeOutcome: 'Upheld',
    });
    expect((await upheld.events()).map((e) => e.type)).to.deep.equal(['debt.disputed', 'debt.updated', 'debt.updated']);
  });

  it('agrees a plan: Active, the plan columns and schedule, plan.activated {plan, debt} then debt.updated', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    const result = expectApplied(await debt.apply(monthlyPlan(3)));
    expect(result.state).to.deep.equal({
      status: 'Active',
      version: 2,
      plan: {
        status: 'Active',
        frequency: 'Monthly',
        instalmentCount: 3,
        instalmentsPaid: 0,
        nextUnpaid: { index: 0, dueDate: '2026-01-31' },
      },
    });
    expect(await planScheduleOf(debt.debtId)).to.deep.equal([
      { dueDate: '2026-01-31', amount: '333.33', paid: '0' },
      { dueDate: '2026-02-28', amount: '333.33', paid: '0' },
      { dueDate: '2026-03-31', amount: '333.34', paid: '0' },
    ]);
    const current = await debt.debt();
    expect(current.plan).to.deep.equal({
      status: 'Active',
      instalmentAmount: 333.33,
      frequency: 'Monthly',
      instalmentCount: 3,
      instalmentsPaid: 0,
      nextDueDate: '2026-01-31',
    });
    const events = (await debt.events()).slice(2);
    expect(events.map((e) => [e.type, e.data])).to.deep.equal([
      ['plan.activated', { plan: current.plan, debt: current }],
      ['debt.updated', { debt: current, previousAttributes: { status: 'Accepted', plan: null } }],
    ]);
  });

  it('refuses an invalid plan request with invalid_request and its detail, writing nothing', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    const before = await debt.snapshot();
    const past = {
      kind: 'agreePlan',
      request: { instalmentCount: 3, frequency: 'Weekly', firstDueDate: '2026-01-14' },
    };
    expect(expectRefused(await debt.apply(past as never), 'invalid_request')).to.contain('not be before today');
    expect(expectRefused(await debt.apply(monthlyPlan(521)), 'invalid_request')).to.contain('1 to 520');
    expect(await debt.snapshot()).to.deep.equal(before);
  });

  it('defaults the plan (InArrears, plan.defaulted {plan, debt}), then agrees a new plan from InArrears', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    expectApplied(await debt.apply(monthlyPlan(3)));
    expectRefused(await debt.apply({ kind: 'default', instalmentIndex: 7 }), 'invalid_request');
    const before = await debt.debt();
    const result = expectApplied(await debt.apply({ kind: 'default', instalmentIndex: 0 }));
    expect(result.state.status).to.equal('InArrears');
    const current = await debt.debt();
    expect(current.plan).to.include({ status: 'Defaulted', nextDueDate: null });
    expect((await debt.events()).slice(-2).map((e) => [e.type, e.data])).to.deep.equal([
      ['plan.defaulted', { plan: current.plan, debt: current }],
      ['debt.updated', { debt: current, previousAttributes: { status: 'Active', plan: before.plan } }],
    ]);
    const replanned = expectApplied(await debt.apply(monthlyPlan(2)));
    expect(replanned.state.plan?.instalmentCount).to.equal(2);
    expect((await planScheduleOf(debt.debtId)).map((i) => i.amount)).to.deep.equal(['500', '500']);
    expect((await debt.debt()).status).to.equal('Active');
  });

  it('closes a debt mid-plan (plan Cancelled) and refuses to close it again', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    expectApplied(await debt.apply(monthlyPlan(3)));
    const before = await debt.debt();
    const closed = expectApplied(await debt.apply({ kind: 'close' }));
    expect(closed.state.status).to.equal('Closed');
    const current = await debt.debt();
    expect(current.plan).to.include({ status: 'Cancelled', nextDueDate: null });
    expect((await debt.events()).slice(-1).map((e) => [e.type, e.data])).to.deep.equal([
      ['debt.updated', { debt: current, previousAttributes: { status: 'Active', plan: before.plan } }],
    ]);
    expectRefused(await debt.apply({ kind: 'close' }), 'invalid_state');
  });

  it('writes a debt off from any non-terminal state, keeping a defaulted plan as it was', async () => {
    const debt = await raiseLifecycleDebt();
    expectApplied(await debt.apply({ kind: 'accept' }));
    expectApplied(await debt.apply(monthlyPlan(3)));
    expectApplied(await debt.apply({ kind: 'default', instalmentIndex: 0 }));
    expectApplied(await debt.apply({ kind: 'writeOff' }));
    expect(await debt.debt()).to.deep.include({ status: 'WrittenOff' });
    expect((await debt.debt()).plan?.status).to.equal('Defaulted');
    expectRefused(await debt.apply({ kind: 'writeOff' }), 'invalid_state');

    const fresh = await raiseLifecycleDebt();
    expectApplied(await fresh.apply({ kind: 'writeOff' }));
    expect((await fresh.events()).map((e) => e.type)).to.deep.equal(['debt.updated']);
  });

  it('serialises concurrent changes on one debt: the second at the same version is a duplicate', async () => {
    const debt = await raiseLifecycleDebt();
    const input = { debtId: debt.debtId, expectedVersion: 0, change: { kind: 'accept' as const } };
    const results = await Promise.all([applyLifecycleChange(testDb(), input), applyLifecycleChange(testDb(), input)]);
    expect(results.map((r) => r.outcome).sort()).to.deep.equal(['applied', 'duplicate']);
    expect((await debt.events()).map((e) => e.type)).to.deep.equal(['debt.accepted', 'debt.updated']);
  });
});
