/**
 * The sandbox host's own console routes (registered in sandbox mode only; production answers 404):
 * - sign-up: the anonymous form (origin check and synchronizer token, as sign-in's) → the per-address limit of
 *   `POST /sandbox/signup` (the same limiter) → the seeded tenant, its first test key and its owner in one
 *   transaction → a session, as the sign-in link's POST makes → the key shown once;
 * - the Sandbox page: where the reset stands (as `GET /v1/sandbox/reset` reports it) and "Reset sandbox now", after a
 *   confirmation, through the same core path as `POST /v1/sandbox/reset`.
 */
import type Router from '@koa/router';
import { requireSignupAllowed } from '../../../core/sandbox/signup-limit';
import { sandboxResetStatus } from '../../../core/sandbox/reset-request';
import { requestConsoleSandboxReset, signUpConsoleSandbox } from '../../../core/staff/console-sandbox';
import { canRunSandboxTests, requireSandboxTesting } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { formProblems, isFormRefusal, refusedFields } from '../shared/form-problems';
import { field, preSessionToken } from '../shared/http';
import { ResetConfirmBody, SandboxBody, SignedUpBody, SignUpForm } from './sandbox-pages';
import { actorOf, signedIn } from '../shared/signed-in';

const SIGN_UP_LABELS = { organizationName: 'Organisation name', email: 'Email address' };

export function sandboxRoutes(router: Router, c: ConsoleContext): void {
  const { db, config, logger, documents, sandbox } = c.deps;
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
    let signup;
    try {
      const { organizationName } = sandbox.readSignup(name.trim() === '' ? {} : { organizationName: name });
      signup = await signUpConsoleSandbox({ db, documents }, { organizationName, email: values.email });
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const csrfToken = preSessionToken(ctx, names, secure);
      const problems = formProblems(error, SIGN_UP_LABELS);
      const props = { csrfToken, values, problems, invalid: refusedFields(error) };
      return c.page(ctx, 'Sign up for the sandbox', <SignUpForm {...props} />, error.status);
    }
    const { organization, owner, apiKey, secret } = signup;
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

  router.get('/console/sandbox', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const status = await sandboxResetStatus(db, session.organizationId);
    const canReset = canRunSandboxTests(session.role, config.mode);
    c.page(ctx, 'Sandbox', <SandboxBody status={status} canReset={canReset} requested={ctx.query.reset === '1'} />);
  });

  router.get('/console/sandbox/reset', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    requireSandboxTesting(session.role, config.mode);
    c.page(ctx, 'Reset the sandbox', <ResetConfirmBody csrfToken={session.csrfToken} />);
  });

  router.post('/console/sandbox/reset', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    await requestConsoleSandboxReset({ db, resets: sandbox.resets }, actorOf(session), config.mode);
    ctx.status = 303;
    ctx.redirect('/console/sandbox?reset=1');
  });
}
