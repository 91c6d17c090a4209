/**
 * Getting in: a link lands on the second-factor form, asking what its debtor's record allows (asked-factors.ts: an
 * unknown link is asked what a debtor with no verification data is, a revoked one what its debtor is); the form's answer makes a short session for that link's debt, or says the details did
 * not match, the same words for a wrong answer and a dead link. Too many wrong answers for the link or from the
 * address is a 429 page. Signing out ends the session.
 */
import type Router from '@koa/router';
import { ApiError } from '../../core/platform/errors';
import { factorsForToken } from '../../core/portal/asked-factors';
import { verifySecondFactor } from '../../core/portal/second-factor';
import { clearCookie, field, preSessionToken, setCookie } from '../console/shared/http';
import { EnterBody, SignedOutBody, VerifyBody } from './entry-pages';
import type { PortalContext } from './portal-context';
import { answersOf, VERIFY_FIELDS, type VerifyValues } from './verify-fields';

export function entryRoutes(router: Router, c: PortalContext): void {
  const { db, redis, config } = c.deps;

  router.get('/portal', (ctx) => {
    c.page(ctx, c.neutralFrame(), 'Your account', <EnterBody />);
  });

  router.get('/portal/l/:token', async (ctx) => {
    const factors = await factorsForToken(db, ctx.params.token ?? '');
    const csrfToken = preSessionToken(ctx, c.names, c.secure);
    c.page(
      ctx,
      c.neutralFrame(),
      'Check it is you',
      <VerifyBody csrfToken={csrfToken} action={ctx.path} factors={factors} />,
    );
  });

  router.post('/portal/l/:token', async (ctx) => {
    const form = await c.anonymousForm(ctx);
    const values: VerifyValues = Object.fromEntries(VERIFY_FIELDS.map((name) => [name, field(form, name)]));
    const result = await verifySecondFactor(
      {
        db,
        redis,
        mode: config.mode,
        triesPerLinkPerHour: config.portal.triesPerLinkPerHour,
        triesPerAddressPerHour: config.portal.triesPerAddressPerHour,
      },
      { token: ctx.params.token ?? '', clientAddress: ctx.request.ip, answers: answersOf(values) },
    );
    if (!result.ok && result.reason === 'too_many') {
      throw new ApiError(
        'rate_limited',
        'There have been too many tries with this link or from this device. Please wait an hour and try again, ' +
          'or contact us using the details below.',
      );
    }
    if (!result.ok) {
      const factors = await factorsForToken(db, ctx.params.token ?? '');
      const csrfToken = preSessionToken(ctx, c.names, c.secure);
      return c.page(
        ctx,
        c.neutralFrame(),
        'Check it is you',
        <VerifyBody csrfToken={csrfToken} action={ctx.path} factors={factors} values={values} failed />,
        400,
      );
    }
    const id = await c.sessions.create({
      organizationId: result.link.organizationId,
      debtId: result.link.debtId,
      debtorId: result.debtorId,
      linkId: result.link.linkId,
    });
    setCookie(ctx, c.names.session, id, c.secure);
    clearCookie(ctx, c.names.preSession, c.secure);
    ctx.status = 303;
    ctx.redirect('/portal/debt');
  });

  router.post('/portal/sign-out', async (ctx) => {
    const { session } = await c.visitForm(ctx);
    const id = ctx.cookies.get(c.names.session);
    if (id && session) await c.sessions.destroy(id);
    clearCookie(ctx, c.names.session, c.secure);
    c.page(ctx, c.neutralFrame(), 'You have signed out', <SignedOutBody />);
  });
}
