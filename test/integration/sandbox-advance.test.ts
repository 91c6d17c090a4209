/**
 * `POST /v1/sandbox/debts/{id}/advance` as a clock for one debt, against the real lifecycle stack
 * (a Temporal dev server and the real lifecycle worker): the answer is the debt as GET returns it plus `fired`, what
 * fired in order; `{ until }` fires every timer due up to it (a date is the end of that day, UTC) and sends the
 * events the real timers would; no body, or `{}`, fires the next timer as before; bad `until` is a plain 400.
 */
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';

type Plan = { status: string; instalmentsPaid: number; nextDueDate: string | null };
type SimDebt = Debt & { status: string; plan: Plan | null };
type Fired = {
  timer: string;
  instalment: number;
  dueDate: string;
  scheduledAt: string;
  effect: string;
  events: string[];
  debtStatus: string;
  planStatus: string | null;
};
type Advanced = SimDebt & { fired: Fired[] };

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const dayAfter = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY).toISOString().slice(0, 10);
const sim = (id: string, action: string) => `/v1/sandbox/debts/${id}/${action}`;

describe('Sandbox advance: fire a debt’s timers up to a moment, and see what fired', function () {
  this.timeout(60_000);
  const ctx = useApiSuite({ mode: 'sandbox' });

  /** The debt's events after its plan was agreed, oldest first. */
  async function eventTypesOf(debtId: string): Promise<string[]> {
    const rows: { type: string }[] = await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId])
      .orderBy('seq')
      .select('type');
    const types = rows.map((r) => r.type);
    return types.slice(types.lastIndexOf('plan.activated') + 2); // after plan.activated and its debt.updated
  }

  /** A debt on a weekly plan of 4 whose first instalment is due today. */
  async function activeDebt(): Promise<SimDebt> {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 1000 });
    expect((await ctx.api('POST', sim(debt.id, 'accept'))).status).to.equal(200);
    const plan = { instalmentCount: 4, frequency: 'Weekly', firstDueDate: today() };
    const planned = await ctx.api<SimDebt>('POST', sim(debt.id, 'plan'), plan);
    expect(planned.status, planned.text).to.equal(200);
    return planned.body;
  }

  /** POSTs advance, asserts 200 and that the answer is the debt as GET returns it, plus `fired`. */
  async function advance(id: string, body?: unknown): Promise<Advanced> {
    const res = await ctx.api<Advanced>('POST', sim(id, 'advance'), body);
    expect(res.status, res.text).to.equal(200);
    const { fired, ...debt } = res.body;
    expect(fired, 'fired').to.be.an('array');
    expect(debt).to.deep.equal((await ctx.api<SimDebt>('GET', `/v1/debts/${id}`)).body);
    return res.body;
  }

  it('{ until } past the grace period fires the due date, then the default, and says so in order', async () => {
    const debt = await activeDebt();
    const due = today();
    const answer = await advance(debt.id, { until: dayAfter(due, 30) });
    expect(answer.status).to.equal('InArrears');
    expect(answer.plan).to.include({ status: 'Defaulted', instalmentsPaid: 0 });
    expect(answer.fired).to.deep.equal([
      {
        timer: 'InstalmentDue',
        instalment: 1,
        dueDate: due,
        scheduledAt: `${dayAfter(due, 1)}T00:00:00.000Z`,
        effect: 'InstalmentLate',
        events: [],
        debtStatus: 'Active',
        planStatus: 'Active',
      },
      {
        timer: 'GracePeriodEnds',
        instalment: 1,
        dueDate: due,
        scheduledAt: `${dayAfter(due, 8)}T00:00:00.000Z`,
        effect: 'PlanDefaulted',
        events: ['plan.defaulted', 'debt.updated'],
        debtStatus: 'InArrears',
        planStatus: 'Defaulted',
      },
    ]);
    expect(await eventTypesOf(debt.id)).to.deep.equal(['plan.defaulted', 'debt.updated']);
    // Nothing left: an empty `fired`, not a refusal; without a body it is the old 409.
    expect((await advance(debt.id, { until: dayAfter(due, 400) })).fired).to.deep.equal([]);
    expectProblem(await ctx.api('POST', sim(debt.id, 'advance')), 409, 'invalid_state');
  });

  it('a date is the end of that day (UTC): the due date makes the instalment late, the 7th day after defaults', async () => {
    const debt = await activeDebt();
    const due = today();
    expect((await advance(debt.id, { until: `${due}T23:59:59.999Z` })).fired).to.deep.equal([]);
    const late = await advance(debt.id, { until: due });
    expect(late.fired.map((f) => [f.timer, f.effect])).to.deep.equal([['InstalmentDue', 'InstalmentLate']]);
    expect(late.status).to.equal('Active');
    expect(await eventTypesOf(debt.id), 'a late instalment sends nothing').to.deep.equal([]);
    expect((await advance(debt.id, { until: dayAfter(due, 6) })).fired).to.deep.equal([]);
    const defaulted = await advance(debt.id, { until: `${dayAfter(due, 7)}T23:00:00-01:00` }); // = day 8, 00:00Z
    expect(defaulted.fired.map((f) => [f.timer, f.effect])).to.deep.equal([['GracePeriodEnds', 'PlanDefaulted']]);
    expect(defaulted.status).to.equal('InArrears');
  });

  it('no body, and {}, still fire the next timer only, now naming it', async () => {
    const debt = await activeDebt();
    const first = await advance(debt.id);
    expect(first.fired.map((f) => f.timer)).to.deep.equal(['InstalmentDue']);
    const second = await advance(debt.id, {});
    expect(second.fired.map((f) => [f.timer, f.debtStatus])).to.deep.equal([['GracePeriodEnds', 'InArrears']]);
  });

  it('{ until } on a debt with no plan fires nothing; on a final debt it is 409 invalid_state', async () => {
    const debt = await raiseDebt(ctx.api);
    const answer = await advance(debt.id, { until: '2999-12-31' });
    expect(answer.fired).to.deep.equal([]);
    expect(answer.status).to.equal('PendingAssignment');
    expect((await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' })).status).to.equal(200);
    expectProblem(await ctx.api('POST', sim(debt.id, 'advance'), { until: '2999-12-31' }), 409, 'invalid_state');
  });

  it('refuses an until that is no date, no real date, has no offset, or comes with other fields, in plain words', async () => {
    const debt = await activeDebt();
    const path = sim(debt.id, 'advance');
    for (const until of ['tomorrow', '2026-02-30', '2026-12-01T10:00:00', '', 20261201]) {
      const res = await ctx.api<{ errors: { path: string; message: string }[] }>('POST', path, { until });
      expectProblem(res, 400, 'invalid_request');
      expect(
        res.body.errors.map((e) => e.path),
        String(until),
      ).to.deep.equal(['body.until']);
      expect(res.body.errors[0]!.message, String(until)).to.not.match(/anyOf|must match/);
    }
    const words = await ctx.api<{ errors: { message: string }[] }>('POST', path, { until: 'tomorrow' });
    expect(words.body.errors[0]!.message).to.equal(
      'must be a date as YYYY-MM-DD or an ISO 8601 date and time, e.g. 2026-11-25T09:30:00Z',
    );
    expectProblem(await ctx.api('POST', path, { until: today(), fire: 'all' }), 400, 'invalid_request');
    expect((await ctx.api<SimDebt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('Active');
  });

  it('replays an advance sent twice under one Idempotency-Key, firing once', async () => {
    const debt = await activeDebt();
    const headers = { 'Idempotency-Key': `advance-${debt.id}` };
    const body = { until: dayAfter(today(), 30) };
    const first = await ctx.api<Advanced>('POST', sim(debt.id, 'advance'), body, headers);
    const again = await ctx.api<Advanced>('POST', sim(debt.id, 'advance'), body, headers);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.text).to.equal(first.text);
    expect(first.body.fired).to.have.length(2);
    expect(await eventTypesOf(debt.id)).to.deep.equal(['plan.defaulted', 'debt.updated']);
  });
});
