/**
 * Paying (issue 28, item 3): the full balance, the plan's next instalment or another amount, through the injected
 * PaymentProcessor. The processor's outcome, not this click, reports a payment to the debt's workflow
 * (core/payments/attempts.ts). Each form carries its own idempotency key, so submitting it twice starts one payment.
 */
import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { compareAmounts, normalizeAmount, parseAmount, subtractAmounts } from '../../core/debts/money';
import { firstUnpaidIndex } from '../../core/lifecycle/plan-schedule';
import { ApiError } from '../../core/platform/errors';
import type { PortalSession } from '../../core/portal/portal-sessions';
import { field } from '../console/http';
import { requireAction } from './debt-routes';
import { loadDebtView, type DebtView } from './debt-view';
import { PAYMENT_TITLES, PayFormBody, PaymentResultBody } from './pay-pages';
import type { PortalContext } from './portal-context';

const TITLE = 'Make a payment';
const ATTEMPT_KEY = /^[A-Za-z0-9_-]{22}$/;

/** What is left of the running plan's next instalment, or null without one. */
function nextInstalment(view: DebtView): { amount: string; dueDate: string } | null {
  if (view.debt.plan?.status !== 'Active') return null;
  const next = view.schedule[firstUnpaidIndex(view.schedule)];
  return next ? { amount: normalizeAmount(subtractAmounts(next.amount, next.paid)), dueDate: next.dueDate } : null;
}

export function payRoutes(router: Router, c: PortalContext): void {
  const processor = c.deps.paymentProcessor;

  async function showForm(
    ctx: Context,
    session: PortalSession,
    view: DebtView,
    values?: { choice: string; amount: string },
    problem?: string,
  ) {
    const body = (
      <PayFormBody
        csrfToken={session.csrfToken}
        attemptKey={randomBytes(16).toString('base64url')}
        outstanding={view.outstanding}
        currency={view.debt.currency}
        instalment={nextInstalment(view)}
        testMode={processor?.kind === 'test'}
        available={processor !== undefined}
        values={values}
        problem={problem}
      />
    );
    c.page(ctx, await c.frameOf(session), TITLE, body, problem ? 400 : 200);
  }

  router.get('/portal/pay', async (ctx) => {
    const session = await c.requireVisit(ctx);
    const view = await loadDebtView(c, session);
    requireAction(view, 'pay');
    await showForm(ctx, session, view);
  });

  router.post('/portal/pay', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    const view = await loadDebtView(c, session);
    requireAction(view, 'pay');
    if (!processor) throw new ApiError('service_unavailable', 'Online payment is not available. Please contact us.');
    const values = { choice: field(form, 'choice'), amount: field(form, 'amount').trim() };
    const read = amountOf(view, values);
    if ('problem' in read) return showForm(ctx, session, view, values, read.problem);
    const attemptKey = field(form, 'attempt');
    if (!ATTEMPT_KEY.test(attemptKey)) throw new ApiError('invalid_request', 'The form was incomplete. Reload it.');
    const start = await processor.start({
      organizationId: session.organizationId,
      debtId: session.debtId,
      amount: read.amount,
      currency: view.debt.currency,
      idempotencyKey: `portal:${attemptKey}`,
      testCardNumber: field(form, 'cardNumber'),
    });
    const after = await loadDebtView(c, session);
    const body = (
      <PaymentResultBody start={start} amount={read.amount} balance={after.outstanding} currency={view.debt.currency} />
    );
    c.page(ctx, await c.frameOf(session), PAYMENT_TITLES[start.status], body);
  });
}

function amountOf(
  view: DebtView,
  values: { choice: string; amount: string },
): { amount: string } | { problem: string } {
  if (values.choice === 'full') return { amount: view.outstanding };
  if (values.choice === 'instalment') {
    const next = nextInstalment(view);
    return next ? { amount: next.amount } : { problem: 'Your plan has no payment due. Choose another amount.' };
  }
  if (values.choice !== 'other') return { problem: 'Choose how much you want to pay.' };
  let amount: string;
  try {
    amount = parseAmount(values.amount.replace(/,/g, ''), view.debt.currency, 'amount');
  } catch {
    return { problem: `Enter the amount as a number, for example 50 or 50.25 (${view.debt.currency}).` };
  }
  if (compareAmounts(amount, view.outstanding) > 0) {
    return { problem: 'That is more than you owe. Enter an amount up to your balance.' };
  }
  return { amount };
}
