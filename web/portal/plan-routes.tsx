/**
 * Agreeing a plan: a form bounded by the organisation's plan rules (core/portal/plan-rules.ts),
 * a preview of the schedule the lifecycle would make (core/lifecycle/plan-schedule.ts), and the confirmation, which
 * checks the rules again and asks the lifecycle (`agreePlan`).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { PLAN_FREQUENCIES, type PlanFrequency } from '../../core/debts/debt-status';
import type { PlanRequest } from '../../core/lifecycle/model';
import { buildPlanSchedule, todayUtc } from '../../core/lifecycle/plan-schedule';
import {
  getPlanRules,
  lastFirstDueDate,
  maxInstalmentsFor,
  planRulesRefusal,
  type PlanRules,
} from '../../core/portal/plan-rules';
import type { PortalSession } from '../../core/portal/portal-sessions';
import { field, type FormBody } from '../console/shared/http';
import { backToDebt, requireAction } from './debt-routes';
import { loadDebtView, type DebtView } from './debt-view';
import { PlanFormBody, PlanPreviewBody } from './plan-pages';
import type { PortalContext } from './portal-context';

const TITLE = 'Set up a payment plan';

export function planRoutes(router: Router, c: PortalContext): void {
  const { db, debtTriggers } = c.deps;

  async function planState(session: PortalSession) {
    const view = await loadDebtView(c, session);
    requireAction(view, 'plan');
    return { view, rules: await getPlanRules(db, session.organizationId), today: todayUtc(c.now()) };
  }

  async function showForm(
    ctx: Context,
    session: PortalSession,
    state: { view: DebtView; rules: PlanRules; today: string },
    values: PlanFormValues,
    problem?: string,
  ) {
    const { view, rules, today } = state;
    const body = (
      <PlanFormBody
        csrfToken={session.csrfToken}
        outstanding={view.outstanding}
        currency={view.debt.currency}
        maxInstalments={maxInstalmentsFor(rules, view.outstanding, view.debt.currency)}
        frequencies={rules.frequencies}
        minInstalment={rules.minInstalmentAmount}
        firstDate={today}
        lastFirstDate={lastFirstDueDate(rules, today)}
        values={values}
        problem={problem}
      />
    );
    c.page(ctx, await c.frameOf(session), TITLE, body, problem ? 400 : 200);
  }

  /** The request the form means, or the words saying what is wrong with it. */
  function readRequest(form: FormBody, state: { view: DebtView; rules: PlanRules; today: string }) {
    const values = formValues(form);
    const count = /^\d{1,3}$/.test(values.instalmentCount) ? Number(values.instalmentCount) : NaN;
    if (!Number.isInteger(count)) return { values, problem: 'Enter the number of payments as a whole number.' };
    if (!(PLAN_FREQUENCIES as readonly string[]).includes(values.frequency)) {
      return { values, problem: 'Choose how often you will pay.' };
    }
    const request: PlanRequest = {
      instalmentCount: count,
      frequency: values.frequency as PlanFrequency,
      firstDueDate: values.firstDueDate,
    };
    const { view, rules, today } = state;
    const problem = planRulesRefusal(rules, view.outstanding, view.debt.currency, request, today);
    return problem ? { values, problem } : { values, request };
  }

  router.get('/portal/plan', async (ctx) => {
    const session = await c.requireVisit(ctx);
    const state = await planState(session);
    const frequency = state.rules.frequencies.includes('Monthly') ? 'Monthly' : (state.rules.frequencies[0] ?? '');
    await showForm(ctx, session, state, { instalmentCount: '3', frequency, firstDueDate: state.today });
  });

  router.post('/portal/plan/preview', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    const state = await planState(session);
    const read = readRequest(form, state);
    if (!read.request) return showForm(ctx, session, state, read.values, read.problem);
    const schedule = buildPlanSchedule(state.view.outstanding, state.view.debt.currency, read.request);
    const body = (
      <PlanPreviewBody
        csrfToken={session.csrfToken}
        request={read.request}
        schedule={schedule}
        currency={state.view.debt.currency}
      />
    );
    c.page(ctx, await c.frameOf(session), 'Check your plan', body);
  });

  router.post('/portal/plan', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    const state = await planState(session);
    const read = readRequest(form, state);
    if (!read.request) return showForm(ctx, session, state, read.values, read.problem);
    await debtTriggers.agreePlan(session.organizationId, session.debtId, read.request);
    backToDebt(ctx, 'plan');
  });
}

interface PlanFormValues {
  instalmentCount: string;
  frequency: string;
  firstDueDate: string;
}

function formValues(form: FormBody): PlanFormValues {
  return {
    instalmentCount: field(form, 'instalmentCount').trim(),
    frequency: field(form, 'frequency'),
    firstDueDate: field(form, 'firstDueDate').trim(),
  };
}
