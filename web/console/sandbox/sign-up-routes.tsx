/**
 * The sandbox host's sign-up (registered in sandbox mode only; production answers 404), in two steps so that the
 * answer is the same for every address (core/staff/signup-requests.ts):
 * - the form: the anonymous form's checks (origin and synchronizer token, as sign-in's) → the per-address limit of
 *   `POST /sandbox/signup` (the same limiter) → the form's values checked → "check your email", whatever the address;
 * - the mailed link: a GET shows a button only; its POST takes the pending sign-up once → the seeded tenant, its first
 *   test key and its owner in one transaction → a session, as the sign-in link's POST makes → the key shown once.
 */
import type Router from '@koa/router';
import { requireSignupAllowed } from '../../../core/sandbox/signup-limit';
import { signUpConsoleSandbox } from '../../../core/staff/console-sandbox';
import { requestConsoleSignup, takePendingSignup } from '../../../core/staff/signup-requests';
import type { ConsoleContext } from '../shared/console-context';
import { formProblems, isFormRefusal, refusedFields } from '../shared/form-problems';
import { field, preSessionToken } from '../shared/http';
import { SignedUpBody, SignUpForm } from './sandbox-pages';
import { SignUpCheckEmail, SignUpLanding, SignUpLinkRefused } from './sign-up-pages';

const SIGN_UP_LABELS = { organizationName: 'Organisation name', email: 'Email address' };

export function signUpRoutes(router: Router, c: ConsoleContext): void {
  const { db, redis, config, logger, documents, sandbox } = c.deps;
  if (config.mode !== 'sandbox' || !sandbox) return;
  const { names, secure } = c;

  router.get('/console/sign-up', async (ctx) => {
    if (await c.session(ctx)) return ctx.redirect('/console');
    c.page(ctx, 'Sign up for the sandbox', <SignUpForm csrfToken={preSessionToken(ctx, names, secure)} />);
  });

  router.post('/console/sign-up', async (ctx) => {
    const form = await c.anonymousForm(ctx);
    // Counted first, as the API's sign-up counts every request: a refused form is an attempt too.
    await requireSignupAllowed(sandbox.signupLimiter, ctx.ip);
    const name = field(form, 'organizationName');
    const values = { organizationName: name, email: field(form, 'email') };
    try {
      const { organizationName } = sandbox.readSignup(name.trim() === '' ? {} : { organizationName: name });
      await requestConsoleSignup({ redis, logger, mail: c.linkDeps }, { organizationName, email: values.email });
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const csrfToken = preSessionToken(ctx, names, secure);
      const problems = formProblems(error, SIGN_UP_LABELS);
      const props = { csrfToken, values, problems, invalid: refusedFields(error) };
      return c.page(ctx, 'Sign up for the sandbox', <SignUpForm {...props} />, error.status);
    }
    c.page(ctx, 'Check your email', <SignUpCheckEmail />);
  });

  router.get('/console/sign-up/confirm', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    c.page(ctx, 'Create your sandbox', <SignUpLanding csrfToken={preSessionToken(ctx, names, secure)} token={token} />);
  });

  router.post('/console/sign-up/confirm', async (ctx) => {
    const form = await c.anonymousForm(ctx);
    const pending = await takePendingSignup(redis, field(form, 'token'));
    if (!pending) return c.page(ctx, 'Link expired or used', <SignUpLinkRefused />, 400);
    // The one who opened the link owns the mailbox: from here, "already has an account" (a second link of the same
    // address confirmed) tells them nothing they could not learn from their mail.
    const { organization, owner, apiKey, secret } = await signUpConsoleSandbox({ db, documents }, pending);
    await c.signIn(ctx, { userId: owner.id, organizationId: organization.id, email: owner.email, role: owner.role });
    // Best effort, as the API's sign-up: the tenant's first authenticated request starts the workflow if this did not.
    await sandbox.resets?.start(organization.id).catch((err: unknown) => {
      logger.warn(
        { err: (err as Error).message, organizationId: organization.id },
        'could not start the reset workflow',
      );
    });
    c.page(
      ctx,
      'Welcome to the sandbox',
      <SignedUpBody organization={organization} apiKey={apiKey} secret={secret} apiBase={config.sandboxBaseUrl} />,
      201,
    );
  });
}
