/**
 * The sandbox host's own console routes (registered in sandbox mode only; production answers 404), besides the
 * sign-up (sign-up-routes.tsx):
 * - the Sandbox page: where the reset stands (as `GET /v1/sandbox/reset` reports it) and the "Reset sandbox now"
 *   button (a POST through the same core path as `POST /v1/sandbox/reset`); while the reset runs the page shows its
 *   progress and reloads itself until it is done. The confirmation page stays for links to it.
 */
import type Router from '@koa/router';
import { sandboxResetStatus } from '../../../core/sandbox/reset-request';
import { requestConsoleSandboxReset } from '../../../core/staff/console-sandbox';
import { canRunSandboxTests, requireSandboxTesting } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { ResetConfirmBody, SandboxBody } from './sandbox-pages';
import { actorOf, signedIn } from '../shared/signed-in';

/** How often the Sandbox page reloads itself while a reset is under way. */
export const RESET_REFRESH_SECONDS = 2;

export function sandboxRoutes(router: Router, c: ConsoleContext): void {
  const { db, config, sandbox } = c.deps;
  if (config.mode !== 'sandbox' || !sandbox) return;

  router.get('/console/sandbox', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const status = await sandboxResetStatus(db, session.organizationId);
    const canReset = canRunSandboxTests(session.role, config.mode);
    const body = (
      <SandboxBody
        status={status}
        canReset={canReset}
        csrfToken={session.csrfToken}
        requested={ctx.query.reset === '1'}
      />
    );
    // While a reset is under way the page reloads itself until it is done (no script needed).
    const underWay = status.status === 'Requested';
    c.page(ctx, 'Sandbox', body, 200, underWay ? { refreshSeconds: RESET_REFRESH_SECONDS } : {});
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
