/**
 * Paying: the full balance, the plan's next instalment or another amount, through the injected
 * PaymentProcessor. The processor's outcome, not this click, reports a payment to the debt's workflow
 * (core/payments/attempts.ts). Each form carries its own idempotency key, so submitting it twice starts one payment;
 * and a debt has one payment in flight at a time, which the page shows again instead of handing out a new form.
 */
import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { compareAmounts, normalizeAmount, parseAmount, subtractAmounts } from '../../core/debts/money';
import { firstUnpaidIndex } from '../../core/lifecycle/plan-schedule';
import { ApiError } from '../../core/platform/errors';
import { findOpenAttempt } from '../../core/payments/attempts';
import type { ChargeRefusal, PaymentStart } from '../../core/payments/processor';
import type { PortalSession } from '../../core/portal/portal-sessions';
import { field } from '../console/shared/http';
import { requireAction } from './debt-routes';
import { loadDebtView, type DebtView } from './debt-view';
import { moneyText } from './format';
import { PAYMENT_TITLES, PayFormBody, PaymentProcessingBody, PaymentResultBody } from './pay-pages';
import { PORTAL_CSP, type PortalContext } from './portal-context';
import { showsTestCards } from './test-card-hint';
import { ANOTHER_AMOUNT_PATH, StripeConfirmation, stripePageCsp } from './stripe-confirmation';

const TITLE = 'Make a payment';
const ATTEMPT_KEY = /^[A-Za-z0-9_-]{22}$/;

/** What is left of the running plan's next instalment, or null without one. */
function nextInstalment(view: DebtView): { amount: string; dueDate: string } | null {
  if (view.debt.plan?.status !== 'Active') return null;
  const next = view.schedule[firstUnpaidIndex(view.schedule)];
  return next ? { amount: normalizeAmount(subtractAmounts(next.amount, next.paid)), dueDate: next.dueDate } : null;
}

/** Where Stripe sends the debtor back after confirming a card: the outcome arrives by Stripe's webhook, not here. */
const STRIPE_RETURN_PATH = '/portal/pay/confirming';

/** `stripeScriptHref`: our same-origin script that mounts Stripe's card form (stripe-confirmation-script.ts). */
export function payRoutes(router: Router, c: PortalContext, stripeScriptHref: string): void {
  const processor = c.deps.paymentProcessor;
  const testCardHint = showsTestCards(c.deps.config, processor?.kind);

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
        testCardHint={testCardHint}
        available={processor !== undefined}
        currencyRefused={processor?.refusal(view.debt.currency) != null}
        values={values}
        problem={problem}
      />
    );
    c.page(ctx, await c.frameOf(session), TITLE, body, problem ? 400 : 200);
  }

  /** The answer to a payment started or shown again: Stripe's card form, or the outcome in words. */
  async function showStart(ctx: Context, session: PortalSession, view: DebtView, start: PaymentStart, amount: string) {
    const frame = await c.frameOf(session);
    if (start.status === 'requires_confirmation') {
      const collector = c.deps.config.portal.collector;
      const body = (
        <StripeConfirmation
          clientSecret={start.clientSecret}
          publishableKey={start.publishableKey}
          returnUrl={`${c.deps.config.publicBaseUrl}${STRIPE_RETURN_PATH}`}
          scriptHref={stripeScriptHref}
          amountLabel={moneyText(amount, view.debt.currency)}
          otherWaysToPay={`Call ${collector.name} on ${collector.phone} (${collector.hours}) to pay another way.`}
          csrfToken={session.csrfToken}
        />
      );
      c.page(ctx, frame, PAYMENT_TITLES[start.status], body, 200, stripePageCsp(PORTAL_CSP));
      return;
    }
    const after = await loadDebtView(c, session);
    const body = (
      <PaymentResultBody start={start} amount={amount} balance={after.outstanding} currency={view.debt.currency} />
    );
    c.page(ctx, frame, PAYMENT_TITLES[start.status], body);
  }

  router.get('/portal/pay', async (ctx) => {
    const session = await c.requireVisit(ctx);
    const view = await loadDebtView(c, session);
    requireAction(view, 'pay');
    // One payment at a time: while one is in flight (another tab's, or this one's before Stripe's webhook), the page
    // shows it, and no new form (no new attempt key) is handed out.
    const open = processor && (await findOpenAttempt(c.deps.db, session.organizationId, session.debtId));
    if (processor && open) {
      const start = await processor.resume(open);
      if (start.status === 'requires_confirmation' || start.status === 'processing') {
        return showStart(ctx, session, view, start, normalizeAmount(open.amount));
      }
    }
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
    // The processor's own rules (Stripe's minor units): an amount it cannot charge exactly is never rounded.
    const refusal = processor.refusal(view.debt.currency, read.amount);
    if (refusal) return showForm(ctx, session, view, values, refusalProblem(refusal, read.amount, view));
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
    await showStart(ctx, session, view, start, read.amount);
  });

  // The card form left unconfirmed (another amount wanted): the attempt is abandoned if nothing is charging it yet,
  // and the pay form comes back; if its card is being charged already, the page shows that payment again.
  router.post(ANOTHER_AMOUNT_PATH, async (ctx) => {
    const { session } = await c.visitForm(ctx);
    const view = await loadDebtView(c, session);
    requireAction(view, 'pay');
    const open = processor && (await findOpenAttempt(c.deps.db, session.organizationId, session.debtId));
    if (open && !(await processor.abandon(open))) {
      return showStart(ctx, session, view, await processor.resume(open), normalizeAmount(open.amount));
    }
    ctx.status = 303;
    ctx.redirect('/portal/pay');
  });

  // Stripe's return after the card step: the payment's outcome reaches the debt only through Stripe's webhook, so
  // this page promises nothing beyond "being processed", whatever the query string says.
  router.get(STRIPE_RETURN_PATH, async (ctx) => {
    const session = await c.requireVisit(ctx);
    c.page(ctx, await c.frameOf(session), PAYMENT_TITLES.processing, <PaymentProcessingBody />);
  });
}

function refusalProblem(refusal: ChargeRefusal, amount: string, view: DebtView): string {
  const currency = view.debt.currency;
  if (refusal.reason === 'currency_not_supported') {
    return `Card payments in ${currency} are not available. Please contact us to pay.`;
  }
  const step = moneyText(refusal.step, currency);
  return (
    `${moneyText(amount, currency)} cannot be paid by card: card payments in ${currency} go in steps of ${step}. ` +
    `Choose "Another amount" and enter a whole number of such steps; you can pay the rest another way.`
  );
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
