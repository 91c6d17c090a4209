/**
 * The sandbox's simulations from a debt's page (sandbox host only): `POST /console/debts/{id}/simulate/{action}`
 * reads the form as the API's simulation route reads its JSON (the same schemas and conversions, through
 * `deps.sandbox.simulations`), plays it through the lifecycle's triggers on behalf of this request (its events carry
 * the request's id), then sends the browser back to the debt's page with a notice. A refusal (a value, or a move the
 * debt's state does not allow) is the debt's page again, with the refusal above the forms and the values kept, under
 * the API's status (400 or 409).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { getDebt, type Debt } from '../../../core/debts/debts';
import { isSimulationAction, type SimulationAction } from '../../../core/lifecycle/simulations';
import type { FiredTimer } from '../../../core/lifecycle/model';
import { ApiError, errors } from '../../../core/platform/errors';
import { simulateConsoleDebt } from '../../../core/staff/console-sandbox';
import { canRunSandboxTests, requireSandboxTesting } from '../../../core/staff/roles';
import type { StaffSession } from '../../../core/staff/sessions';
import type { ConsoleContext } from '../shared/console-context';
import { formProblems, isFormRefusal, refusedFields } from '../shared/form-problems';
import { field, type FormBody } from '../shared/http';
import { actorOf } from '../shared/signed-in';
import { SIMULATION_LABELS, SimulationPanel, type SimulationOutcome } from './simulation-panel';

/** Renders the debt's page again, with a simulation's refusal (debts/debts-routes.tsx). */
export type ShowDebt = (
  ctx: Context,
  session: StaffSession,
  debtId: string,
  outcome?: SimulationOutcome,
  status?: number,
) => Promise<void>;

const DONE: Record<SimulationAction, string> = {
  accept: 'The debtor accepted the debt.',
  dispute: 'The debtor disputed the debt.',
  resolve: 'The dispute is resolved.',
  plan: 'The debtor agreed a plan.',
  payment: 'The payment is reported.',
  advance: 'The next timer fired.',
};

/** The simulations' section of a debt's page: on the sandbox host only (undefined elsewhere). */
export function simulationPanel(
  c: ConsoleContext,
  ctx: Context,
  session: StaffSession,
  debt: Debt,
  outcome?: SimulationOutcome,
) {
  const mode = c.deps.config.mode;
  if (mode !== 'sandbox' || !c.deps.sandbox) return undefined;
  return (
    <SimulationPanel
      debt={debt}
      csrfToken={session.csrfToken}
      canSimulate={canRunSandboxTests(session.role, mode)}
      today={new Date().toISOString().slice(0, 10)}
      outcome={outcome ?? doneNotice(ctx, debt)}
    />
  );
}

/** After a simulation, the page's address says which one ran (and, for `advance`, what fired). */
function doneNotice(ctx: Context, debt: Debt): SimulationOutcome | undefined {
  const action = typeof ctx.query.simulated === 'string' ? ctx.query.simulated : '';
  if (!isSimulationAction(action)) return undefined;
  const fired = typeof ctx.query.fired === 'string' ? ctx.query.fired.split(',').map(firedText) : [];
  const what = action === 'advance' && fired.length > 0 ? fired.filter(Boolean).join(' ') : DONE[action];
  return { kind: 'done', message: `${what} The debt is now ${debt.status}.` };
}

function firedText(token: string): string {
  const match = /^(due|grace)-(\d{1,4})$/.exec(token);
  if (!match) return '';
  return match[1] === 'due'
    ? `Instalment ${match[2]} is past its due date (late; no event).`
    : `Instalment ${match[2]}’s grace period ended: the plan defaulted.`;
}

function firedToken(fired: FiredTimer): string {
  return `${fired.purpose === 'gracePeriodEnds' ? 'grace' : 'due'}-${fired.instalmentIndex + 1}`;
}

/** The form as the JSON body the API's route would receive: strings, and the instalments as a number when one. */
function simulationBody(action: SimulationAction, form: FormBody): Record<string, unknown> {
  switch (action) {
    case 'accept':
    case 'advance':
      return {};
    case 'dispute':
      return { reason: field(form, 'reason') };
    case 'resolve':
      return { outcome: field(form, 'outcome') };
    case 'plan': {
      const count = field(form, 'instalmentCount').trim();
      return {
        instalmentCount: /^\d{1,6}$/.test(count) ? Number(count) : count,
        frequency: field(form, 'frequency'),
        firstDueDate: field(form, 'firstDueDate').trim(),
      };
    }
    case 'payment': {
      const reference = field(form, 'processorReference').trim();
      return {
        amount: field(form, 'amount').trim(),
        status: field(form, 'status'),
        ...(reference ? { processorReference: reference } : {}),
      };
    }
  }
}

export function simulationRoutes(router: Router, c: ConsoleContext, showDebt: ShowDebt): void {
  const { db, config, debtTriggers, sandbox } = c.deps;
  if (config.mode !== 'sandbox' || !sandbox) return;

  router.post('/console/debts/:id/simulate/:action', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const action = ctx.params.action ?? '';
    if (!isSimulationAction(action)) throw new ApiError('not_found', 'There is no such simulation.');
    requireSandboxTesting(session.role, config.mode);
    const debt = await getDebt(db, session.organizationId, ctx.params.id ?? '');
    if (!debt) throw errors.notFound('debt');
    const requestId = (ctx.state as { requestId: string }).requestId;
    const body = simulationBody(action, form);
    try {
      const simulation = sandbox.simulations.read(action, body, { currency: debt.currency, updateId: requestId });
      const outcome = await simulateConsoleDebt(
        { db, triggers: debtTriggers },
        actorOf(session),
        config.mode,
        debt.id,
        simulation,
        requestId,
      );
      const fired = outcome.fired ? `&fired=${outcome.fired.map(firedToken).join(',')}` : '';
      ctx.status = 303;
      ctx.redirect(`/console/debts/${debt.id}?simulated=${action}${fired}#simulate`);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const values = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, v[0] ?? '']));
      const outcome: SimulationOutcome = {
        kind: 'refused',
        action,
        problems: formProblems(error, SIMULATION_LABELS),
        values,
        invalid: refusedFields(error),
      };
      await showDebt(ctx, session, debt.id, outcome, error.status);
    }
  });
}
