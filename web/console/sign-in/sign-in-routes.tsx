/** Sign-in and sign-out: the email form, the link's landing page and its POST, sign out here and everywhere. */
import type Router from '@koa/router';
import { consumeSignInLink, requestSignInLink } from '../../../core/staff/magic-links';
import { ApiError } from '../../../core/platform/errors';
import { clearCookie, field, preSessionToken } from '../shared/http';
import { CheckYourEmail, LinkLanding, LinkRefused, SignInForm } from './sign-in-pages';
import type { ConsoleContext } from '../shared/console-context';

export function signInRoutes(router: Router, c: ConsoleContext): void {
  const { names, secure } = c;

  router.get('/console/sign-in', async (ctx) => {
    if (await c.session(ctx)) return ctx.redirect('/console');
    const signUp = c.deps.sandbox !== undefined;
    c.page(ctx, 'Sign in', <SignInForm csrfToken={preSessionToken(ctx, names, secure)} signUp={signUp} />);
  });

  router.post('/console/sign-in', async (ctx) => {
    const form = await c.anonymousForm(ctx);
    const outcome = await requestSignInLink(c.linkDeps, { email: field(form, 'email'), clientAddress: ctx.ip });
    if (outcome === 'rate-limited') {
      throw new ApiError('rate_limited', 'Too many sign-in links were asked for. Try again in an hour.');
    }
    c.page(ctx, 'Check your email', <CheckYourEmail />);
  });

  // A GET shows the button only: a mail scanner that opens the link signs nobody in.
  router.get('/console/sign-in/link', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    c.page(ctx, 'Sign in', <LinkLanding csrfToken={preSessionToken(ctx, names, secure)} token={token} />);
  });

  router.post('/console/sign-in/link', async (ctx) => {
    const form = await c.anonymousForm(ctx);
    const user = await consumeSignInLink(c.linkDeps, field(form, 'token'));
    if (!user) return c.page(ctx, 'Link expired or used', <LinkRefused />, 400);
    await c.signIn(ctx, user);
    ctx.status = 303;
    ctx.redirect('/console');
  });

  router.post('/console/sign-out', async (ctx) => {
    await c.sessionForm(ctx);
    const id = ctx.cookies.get(names.session);
    if (id) await c.sessions.destroy(id);
    clearCookie(ctx, names.session, secure);
    ctx.status = 303;
    ctx.redirect('/console/sign-in');
  });

  router.post('/console/sign-out-everywhere', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    await c.sessions.destroyAllFor(session.userId);
    clearCookie(ctx, names.session, secure);
    ctx.status = 303;
    ctx.redirect('/console/sign-in');
  });
}
