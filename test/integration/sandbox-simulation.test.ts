/**
 * The sandbox's simulation routes (`/v1/sandbox/debts/{id}/…`) against the real lifecycle stack (a Temporal dev
 * server and the real lifecycle worker): each move answers the debt as GET /v1/debts/{id} does and records the
 * lifecycle's events in the outbox; illegal moves are `409 invalid_state`, bad input `400 invalid_request`.
 */
import { expect } from 'chai';
import { testDb } from '../support/resources';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { createTestTenant } from '../support/tenants';

type Plan = { status: string; instalmentsPaid: number; nextDueDate: string | null };
type SimDebt = Debt & { status: string; outstandingPrincipal: number; plan: Plan | null; disputeReason: string | null };

const today = () => new Date().toISOString().slice(0, 10);
const sim = (id: string, action: string) => `/v1/sandbox/debts/${id}/${action}`;

describe('Sandbox simulation routes drive the real lifecycle', function () {
  this.timeout(60_000);
  const ctx = useApiSuite({ mode: 'sandbox' });

  /** The outbox events of this test's organisation after `debt.created`, oldest first. */
  async function eventsOf(debtId: string): Promise<{ type: string; data: { debt: SimDebt } }[]> {
    const rows = await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId])
      .orderBy('seq')
      .select('type', 'data');
    return rows
      .map((r: { type: string; data: unknown }) => ({
        type: r.type,
        data: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { debt: SimDebt },
      }))
      .filter((e) => e.type !== 'debt.created');
  }

  /**
   * POSTs a simulation, asserts 200, and checks the answer is the debt exactly as GET returns it (`advance` adds
   * `fired`, checked by its own tests).
   */
  async function move(id: string, action: string, body?: unknown, headers?: Record<string, string>) {
    const res = await ctx.api<SimDebt & { fired?: unknown[] }>('POST', sim(id, action), body, headers);
    expect(res.status, `${action}: ${res.text}`).to.equal(200);
    expect(res.headers.get('x-ratelimit-remaining'), 'rate-limited like every /v1 call').to.match(/^\d+$/);
    const { fired, ...debt } = res.body;
    expect(fired !== undefined, `${action} answers fired`).to.equal(action === 'advance');
    expect(debt).to.deep.equal((await ctx.api<SimDebt>('GET', `/v1/debts/${id}`)).body);
    return debt;
  }

  async function activeDebt(principal = 1000): Promise<SimDebt> {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: principal });
    await move(debt.id, 'accept');
    return move(debt.id, 'plan', { instalmentCount: 4, frequency: 'Weekly', firstDueDate: today() });
  }

  it('accept: PendingAssignment → Accepted, with debt.accepted then debt.updated carrying the debt answered', async () => {
    const debt = await raiseDebt(ctx.api);
    const accepted = await move(debt.id, 'accept');
    expect(accepted.status).to.equal('Accepted');
    const events = await eventsOf(debt.id);
    expect(events.map((e) => e.type)).to.deep.equal(['debt.accepted', 'debt.updated']);
    expect(events[1]!.data.debt).to.deep.equal(accepted);
    expectProblem(await ctx.api('POST', sim(debt.id, 'accept')), 409, 'invalid_state');
  });

  it('records the request id of the move, and of a recall, on the events the workflow commits for it', async () => {
    const debt = await raiseDebt(ctx.api);
    const accepted = await ctx.api<SimDebt>('POST', sim(debt.id, 'accept'));
    const recalled = await ctx.api<SimDebt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    expect([accepted.status, recalled.status]).to.deep.equal([200, 200]);
    const rows = await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debt.id])
      .whereNot({ type: 'debt.created' })
      .orderBy('seq')
      .select('type', 'request_id');
    const acceptedBy = accepted.headers.get('x-request-id');
    const recalledBy = recalled.headers.get('x-request-id');
    expect(rows).to.deep.equal([
      { type: 'debt.accepted', request_id: acceptedBy },
      { type: 'debt.updated', request_id: acceptedBy },
      { type: 'debt.updated', request_id: recalledBy },
    ]);
  });

  it('dispute with a reason, then resolve it either way: back to PendingAssignment, or WrittenOff', async () => {
    const debt = await raiseDebt(ctx.api);
    const disputed = await move(debt.id, 'dispute', { reason: 'Not mine.' });
    expect(disputed).to.include({ status: 'Disputed', disputeReason: 'Not mine.' });
    expect((await move(debt.id, 'dispute/resolve', { outcome: 'rejected' })).status).to.equal('PendingAssignment');
    expect((await eventsOf(debt.id)).map((e) => e.type)).to.deep.equal([
      'debt.disputed',
      'debt.updated',
      'debt.updated',
    ]);

    const other = await raiseDebt(ctx.api);
    await move(other.id, 'dispute', { reason: 'Paid in March.' });
    expect((await move(other.id, 'dispute/resolve', { outcome: 'upheld' })).status).to.equal('WrittenOff');
    expectProblem(await ctx.api('POST', sim(other.id, 'dispute'), { reason: 'again' }), 409, 'invalid_state');
  });

  it('refuses a blank reason, an unknown outcome and resolving an undisputed debt', async () => {
    const debt = await raiseDebt(ctx.api);
    expectProblem(await ctx.api('POST', sim(debt.id, 'dispute'), { reason: '  ' }), 400, 'invalid_request');
    expectProblem(await ctx.api('POST', sim(debt.id, 'dispute'), {}), 400, 'invalid_request');
    const resolve = sim(debt.id, 'dispute/resolve');
    expectProblem(await ctx.api('POST', resolve, { outcome: 'maybe' }), 400, 'invalid_request');
    expectProblem(await ctx.api('POST', resolve, { outcome: 'upheld' }), 409, 'invalid_state');
    expect(await eventsOf(debt.id)).to.deep.equal([]);
  });

  it('plan: Accepted → Active with plan.activated; bad plans are 400 and a plan before accepting is 409', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 1000 });
    const planPath = sim(debt.id, 'plan');
    const plan = { instalmentCount: 4, frequency: 'Weekly', firstDueDate: today() };
    expectProblem(await ctx.api('POST', planPath, plan), 409, 'invalid_state');
    await move(debt.id, 'accept');
    for (const bad of [
      { ...plan, instalmentCount: 0 },
      { ...plan, frequency: 'Daily' },
      { ...plan, firstDueDate: '2026-02-30' },
      { ...plan, firstDueDate: '2020-01-01' }, // before today: the lifecycle's own rule
      { ...plan, instalmentCount: 200_000 },
    ]) {
      expectProblem(await ctx.api('POST', planPath, bad), 400, 'invalid_request');
    }
    const active = await move(debt.id, 'plan', plan);
    expect(active.status).to.equal('Active');
    expect(active.plan).to.include({ status: 'Active', instalmentsPaid: 0, nextDueDate: today() });
    expect((await eventsOf(debt.id)).map((e) => e.type).slice(-2)).to.deep.equal(['plan.activated', 'debt.updated']);
  });

  it('payments: a success pays the plan with payment.received; a failure records a Failed transaction only', async () => {
    const debt = await activeDebt(1000);
    const paid = await move(debt.id, 'payments', { amount: 250, processorReference: 'pi_one' });
    expect(paid).to.deep.include({ status: 'Active', outstandingPrincipal: 750 });
    expect(paid.plan).to.include({ instalmentsPaid: 1 });
    const before = await eventsOf(debt.id);
    expect(before.map((e) => e.type).slice(-2)).to.deep.equal(['payment.received', 'debt.updated']);

    const failed = await move(debt.id, 'payments', { amount: '100.00', status: 'Failed' });
    expect(failed.outstandingPrincipal).to.equal(750);
    expect(await eventsOf(debt.id)).to.have.length(before.length);
    const txs = await ctx.api<{ data: { status: string; amount: number; processorReference: string }[] }>(
      'GET',
      `/v1/transactions?debtId=${debt.id}`,
    );
    expect(txs.body.data.map((t) => [t.status, t.amount]).sort()).to.deep.equal([
      ['Failed', 100],
      ['Succeeded', 250],
    ]);
    expect(txs.body.data.find((t) => t.status === 'Failed')!.processorReference).to.match(/^pi_sandbox_/);

    const settled = await move(debt.id, 'payments', { amount: 750 });
    expect(settled).to.deep.include({ status: 'Settled', outstandingPrincipal: 0 });
    expect(settled.plan).to.include({ status: 'Completed' });
    expectProblem(await ctx.api('POST', sim(debt.id, 'payments'), { amount: 1 }), 409, 'invalid_state');
  });

  it('refuses an overpayment, too many decimals, a non-positive amount and an unknown status with 400', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 100 });
    const path = sim(debt.id, 'payments');
    for (const body of [
      { amount: 100.01 },
      { amount: '1.001' },
      { amount: 0 },
      { amount: -5 },
      { amount: 5, status: 'Pending' },
    ]) {
      expectProblem(await ctx.api('POST', path, body), 400, 'invalid_request');
    }
    // Read exactly as written: JSON.parse would make this 1.
    expectProblem(await ctx.api('POST', path, '{"amount": 1.0000000000000001}'), 400, 'invalid_request');
    expect(await eventsOf(debt.id)).to.deep.equal([]);
  });

  it('advance: the first call passes the due date silently, the second ends the grace period: plan.defaulted', async () => {
    const debt = await activeDebt();
    const eventsBefore = (await eventsOf(debt.id)).length;
    const due = await move(debt.id, 'advance');
    expect(due.status).to.equal('Active');
    expect(await eventsOf(debt.id)).to.have.length(eventsBefore);
    const defaulted = await move(debt.id, 'advance');
    expect(defaulted.status).to.equal('InArrears');
    expect(defaulted.plan).to.include({ status: 'Defaulted', instalmentsPaid: 0 });
    const events = await eventsOf(debt.id);
    expect(events.slice(eventsBefore).map((e) => e.type)).to.deep.equal(['plan.defaulted', 'debt.updated']);
    expect(events.at(-1)!.data.debt).to.deep.equal(defaulted);
    expectProblem(await ctx.api('POST', sim(debt.id, 'advance')), 409, 'invalid_state');
    // From InArrears the debtor may agree a new plan.
    const again = await move(debt.id, 'plan', { instalmentCount: 2, frequency: 'Monthly', firstDueDate: today() });
    expect(again.status).to.equal('Active');
  });

  it('the cookbook’s walk (docs/sandbox.md step 4) answers and sends what the guide says', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 1000 });
    const plan = (instalmentCount: number, frequency: string) => ({
      instalmentCount,
      frequency,
      firstDueDate: today(),
    });
    const steps: [string, unknown][] = [
      ['accept', undefined],
      ['plan', plan(4, 'Weekly')],
      ['payments', { amount: 250, processorReference: 'pi_test_1' }],
      ['payments', { amount: 250, status: 'Failed' }],
      ['advance', undefined],
      ['advance', undefined],
      ['plan', plan(1, 'Monthly')],
      ['payments', { amount: 750 }],
    ];
    const seen: unknown[] = [];
    for (const [action, body] of steps) {
      const answer = await move(debt.id, action, body);
      seen.push([
        answer.status,
        answer.outstandingPrincipal,
        answer.plan?.status ?? null,
        answer.plan?.instalmentsPaid,
      ]);
    }
    expect(seen).to.deep.equal([
      ['Accepted', 1000, null, undefined],
      ['Active', 1000, 'Active', 0],
      ['Active', 750, 'Active', 1],
      ['Active', 750, 'Active', 1],
      ['Active', 750, 'Active', 1],
      ['InArrears', 750, 'Defaulted', 1],
      ['Active', 750, 'Active', 0],
      ['Settled', 0, 'Completed', 1],
    ]);
    expect((await eventsOf(debt.id)).map((e) => e.type)).to.deep.equal([
      'debt.accepted',
      'debt.updated',
      'plan.activated',
      'debt.updated',
      'payment.received',
      'debt.updated',
      'plan.defaulted',
      'debt.updated',
      'plan.activated',
      'debt.updated',
      'payment.received',
      'debt.updated',
    ]);
  });

  it('replays a payment sent twice with one Idempotency-Key, recording it once', async () => {
    const debt = await activeDebt(1000);
    const headers = { 'Idempotency-Key': `pay-${debt.id}` };
    const first = await ctx.api('POST', sim(debt.id, 'payments'), { amount: 10 }, headers);
    const again = await ctx.api('POST', sim(debt.id, 'payments'), { amount: 10 }, headers);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.text).to.equal(first.text);
    const other = await ctx.api('POST', sim(debt.id, 'payments'), { amount: 11 }, headers);
    expectProblem(other, 409, 'idempotency_conflict');
    expect((await eventsOf(debt.id)).filter((e) => e.type === 'payment.received')).to.have.length(1);
  });

  it('needs debts:write, and answers 404 for a debt that is not the caller’s', async () => {
    const debt = await raiseDebt(ctx.api);
    const reader = await createTestTenant({ mode: 'sandbox', scopes: ['debts:read'] });
    const stranger = await createTestTenant({ mode: 'sandbox' });
    const asReader = callerFor(ctx.server.baseUrl, reader);
    expectProblem(await asReader('POST', sim(debt.id, 'accept')), 403, 'forbidden');
    const asStranger = callerFor(ctx.server.baseUrl, stranger);
    const simulations = ctx.server.built.routes.filter((r) => r.path.startsWith('/v1/sandbox/debts/'));
    expect(simulations).to.have.length(6);
    for (const route of simulations) {
      const path = route.path.replace('{id}', debt.id);
      const body = (route.body as { example?: unknown } | undefined)?.example;
      expectProblem(await asStranger('POST', path, body), 404, 'not_found');
    }
    expect((await ctx.api<SimDebt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('PendingAssignment');
  });
});
