/**
 * The Idempotency-Key covers the workflow's change. A request that drives a debt's workflow
 * records its key as pending with its own id before asking, and that id is the Temporal update id: when the API
 * fails after the workflow applied the change (the fault injected here, after the real trigger returned), the
 * client's retry under the same key is the same update and gets the first one's result: one payment, one event, 2xx.
 */
import { expect } from 'chai';
import type { DebtTriggers } from '../../core/lifecycle/triggers';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { testDebtTriggers } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';

type Move = 'reportPayment' | 'close';

/**
 * The real triggers, except that the next `failNext` move of that kind fails after the workflow answered: the API
 * then answers 500 for a change that was made.
 */
function triggersFailingAfter(real: DebtTriggers, failNext: Set<Move>, updateIds: string[]): DebtTriggers {
  const wrap = (triggers: DebtTriggers): DebtTriggers => ({
    ...triggers,
    reportPayment: async (...args) => {
      const debt = await triggers.reportPayment(...args);
      if (failNext.delete('reportPayment')) throw new Error('injected: the API fails after the workflow answered');
      return debt;
    },
    close: async (...args) => {
      const debt = await triggers.close(...args);
      if (failNext.delete('close')) throw new Error('injected: the API fails after the workflow answered');
      return debt;
    },
    forRequest: (id) => {
      updateIds.push(id);
      return wrap(triggers.forRequest(id));
    },
  });
  return wrap(real);
}

describe('Idempotency-Key across a workflow change that the API failed to answer', function () {
  this.timeout(90_000);
  const failNext = new Set<Move>();
  const updateIds: string[] = [];
  const ctx = useApiSuite({
    mode: 'sandbox',
    deps: { debtTriggers: triggersFailingAfter(testDebtTriggers('sandbox'), failNext, updateIds) },
  });
  beforeEach(() => {
    failNext.clear();
    updateIds.length = 0;
  });

  async function eventTypes(debtId: string): Promise<string[]> {
    const rows = await testDb()('events')
      .whereRaw(`data->'debt'->>'id' = ?`, [debtId])
      .orderBy('seq')
      .pluck<string[]>('type');
    return rows.filter((type) => type !== 'debt.created');
  }

  it('a payment retried under its key after a 500 is recorded once, with one payment.received', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 500 });
    const pay = () =>
      ctx.api<Debt>(
        'POST',
        `/v1/sandbox/debts/${debt.id}/payments`,
        { amount: 120, status: 'Succeeded' },
        { 'idempotency-key': 'pay-120' },
      );
    failNext.add('reportPayment');
    const failed = await pay();
    expect(failed.status, failed.text).to.equal(500);
    const firstRequestId = failed.headers.get('x-request-id')!;

    const retried = await pay();
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.body.outstandingPrincipal).to.equal(380);
    expect(updateIds, 'both tries asked with the first request’s id').to.deep.equal([firstRequestId, firstRequestId]);
    const replayed = await pay();
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body).to.deep.equal(retried.body);

    const payments = await testDb()('transactions').where({ debt_id: debt.id }).select('processor_reference');
    expect(payments.map((p) => p.processor_reference)).to.deep.equal([
      `pi_sandbox_${firstRequestId.replace(/^req_/, '')}`,
    ]);
    expect(await eventTypes(debt.id)).to.deep.equal(['payment.received', 'debt.updated']);
    const received = await testDb()('events')
      .where({ type: 'payment.received' })
      .whereRaw(`data->'debt'->>'id' = ?`, [debt.id])
      .first('request_id');
    expect(received?.request_id, 'the event carries the request that made the change').to.equal(firstRequestId);
  });

  it('a recall retried under its key after a 500 closes the debt once, with one debt.updated', async () => {
    const debt = await raiseDebt(ctx.api);
    const recall = () =>
      ctx.api<Debt>(
        'PATCH',
        `/v1/debts/${debt.id}`,
        { status: 'Closed', clientReference: 'LOAN-77' },
        { 'idempotency-key': 'recall-1' },
      );
    failNext.add('close');
    expect((await recall()).status).to.equal(500);
    const retried = await recall();
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.body).to.include({ status: 'Closed', clientReference: 'LOAN-77' });
    expect(await eventTypes(debt.id)).to.deep.equal(['debt.updated']);
  });

  it('a 400 frees the key: the corrected request may use it; another request under a pending key is a conflict', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 500 });
    const path = `/v1/sandbox/debts/${debt.id}/payments`;
    const key = { 'idempotency-key': 'pay-fix' };
    // A GBP amount with three decimal places is refused for its own input, before the workflow is asked.
    expectProblem(await ctx.api('POST', path, { amount: '1.005', status: 'Succeeded' }, key), 400, 'invalid_request');
    const corrected = await ctx.api<Debt>('POST', path, { amount: '1.00', status: 'Succeeded' }, key);
    expect(corrected.status, corrected.text).to.equal(200);

    failNext.add('reportPayment');
    const pendingKey = { 'idempotency-key': 'pay-pending' };
    expect((await ctx.api('POST', path, { amount: 2, status: 'Succeeded' }, pendingKey)).status).to.equal(500);
    expectProblem(
      await ctx.api('POST', path, { amount: 3, status: 'Succeeded' }, pendingKey),
      409,
      'idempotency_conflict',
    );
    expect(await eventTypes(debt.id)).to.deep.equal([
      'payment.received',
      'debt.updated',
      'payment.received',
      'debt.updated',
    ]);
  });
});
