/**
 * The debt's page, accepting it and disputing it. Each action is the lifecycle's trigger, asked
 * only when the state allows it (core/portal/debtor-actions.ts); the lifecycle's own refusal is the error page.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../../core/platform/errors';
import { debtorActions } from '../../core/portal/debtor-actions';
import type { PortalSession } from '../../core/portal/portal-sessions';
import { field } from '../console/shared/http';
import { DebtBody, DISPUTE_REASON_MAX_LENGTH, DisputeBody } from './debt-pages';
import { loadDebtView, type DebtView } from './debt-view';
import type { PortalContext } from './portal-context';

/** Refuses an action the debt's state does not offer, in the words the page would use. */
export function requireAction(view: DebtView, action: keyof ReturnType<typeof debtorActions>): void {
  if (debtorActions(view.debt.status)[action]) return;
  const why =
    view.debt.status === 'Disputed'
      ? 'While your dispute is open, payments and plans are paused.'
      : 'Your account’s status does not allow this now.';
  throw new ApiError('invalid_state', why);
}

export function backToDebt(ctx: Context, done: string): void {
  ctx.status = 303;
  ctx.redirect(`/portal/debt?done=${done}`);
}

export function debtRoutes(router: Router, c: PortalContext): void {
  const { debtTriggers } = c.deps;

  router.get('/portal/debt', async (ctx) => {
    const session = await c.requireVisit(ctx);
    const [view, frame] = await Promise.all([loadDebtView(c, session, { transactions: true }), c.frameOf(session)]);
    const done = typeof ctx.query.done === 'string' ? ctx.query.done : undefined;
    c.page(
      ctx,
      frame,
      'Your account',
      <DebtBody view={view} creditorName={frame.creditorName ?? ''} csrfToken={session.csrfToken} done={done} />,
    );
  });

  router.post('/portal/accept', async (ctx) => {
    const { session } = await c.visitForm(ctx);
    requireAction(await loadDebtView(c, session), 'accept');
    await debtTriggers.accept(session.organizationId, session.debtId);
    backToDebt(ctx, 'accepted');
  });

  router.get('/portal/dispute', async (ctx) => {
    const session = await c.requireVisit(ctx);
    requireAction(await loadDebtView(c, session), 'dispute');
    c.page(ctx, await c.frameOf(session), 'Dispute this debt', <DisputeBody csrfToken={session.csrfToken} />);
  });

  router.post('/portal/dispute', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    requireAction(await loadDebtView(c, session), 'dispute');
    const reason = field(form, 'reason').trim();
    const problem = disputeProblem(reason);
    if (problem) return refuseDispute(c, ctx, session, reason, problem);
    await debtTriggers.dispute(session.organizationId, session.debtId, reason);
    backToDebt(ctx, 'disputed');
  });
}

function disputeProblem(reason: string): string | null {
  if (reason.length === 0) return 'Please tell us why you dispute this debt.';
  if (reason.length > DISPUTE_REASON_MAX_LENGTH) {
    return `Please keep your reason to ${DISPUTE_REASON_MAX_LENGTH} characters or fewer.`;
  }
  return null;
}

async function refuseDispute(
  c: PortalContext,
  ctx: Context,
  session: PortalSession,
  reason: string,
  problem: string,
): Promise<void> {
  const body = <DisputeBody csrfToken={session.csrfToken} reason={reason} problem={problem} />;
  c.page(ctx, await c.frameOf(session), 'Dispute this debt', body, 400);
}
