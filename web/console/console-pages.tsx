/**
 * The client console, mounted at /console on each host's Koa app (ARCHITECTURE.md: pages call core/ directly, under
 * a staff session, never the public API). Every answer under /console carries the pages' security headers; every
 * error is the problem catalogue rendered as a page, with the same status.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from '../../core/platform/errors';
import { pageError } from '../page-errors';
import { createSessionStore } from '../../core/staff/sessions';
import { createMembershipCache } from '../../core/staff/membership';
import { loadWebAssets } from '../assets';
import { setPageHeaders } from '../page';
import { accountRoutes } from './account/account-routes';
import { brandingRoutes } from './branding/branding-routes';
import { debtsRoutes } from './debts/debts-routes';
import { documentRoutes } from './debts/document-routes';
import { teamRoutes } from './team/team-routes';
import { portalSettingsRoutes } from './portal-settings/portal-settings-routes';
import { notificationsRoutes } from './notifications/notifications-page';
import { portalLinkRoutes } from './debts/portal-link-routes';
import { createConsoleContext, type ConsoleContext, type ConsoleDeps } from './shared/console-context';
import { ErrorBody, errorTitle } from './shared/error-page';
import { cookieNames } from './shared/http';
import { sandboxRoutes } from './sandbox/sandbox-routes';
import { signUpRoutes } from './sandbox/sign-up-routes';
import { signInRoutes } from './sign-in/sign-in-routes';
import { webhookRoutes } from './webhooks/webhook-routes';
import { deliveryRoutes } from './deliveries/delivery-routes';
import { eventsRoutes } from './events/events-routes';
import { auditRoutes } from './audit/audit-routes';
import { searchRoutes } from './search/search-routes';
import { placementRoutes } from './placements/placements-routes';

export type { ConsoleDeps };

export const CONSOLE_PREFIX = '/console';

export function consolePages(deps: ConsoleDeps): Middleware {
  const assets = loadWebAssets();
  const sessions = createSessionStore({
    redis: deps.redis,
    mode: deps.config.mode,
    settings: {
      idleTimeoutMs: deps.config.console.sessionIdleTimeoutMs,
      absoluteLifetimeMs: deps.config.console.sessionAbsoluteLifetimeMs,
    },
  });
  const names = cookieNames(deps.config.console.secureCookies);
  const membership = createMembershipCache({ db: deps.db, now: () => (deps.now?.() ?? new Date()).getTime() });
  const c = createConsoleContext(deps, { sessions, membership, names, stylesheetHref: assets.stylesheetHref });
  const router = new Router();
  signInRoutes(router, c);
  accountRoutes(router, c);
  brandingRoutes(router, c);
  debtsRoutes(router, c);
  documentRoutes(router, c);
  teamRoutes(router, c);
  portalSettingsRoutes(router, c);
  webhookRoutes(router, c);
  deliveryRoutes(router, c);
  eventsRoutes(router, c);
  searchRoutes(router, c);
  auditRoutes(router, c);
  sandboxRoutes(router, c);
  signUpRoutes(router, c);
  portalLinkRoutes(router, c);
  notificationsRoutes(router, c);
  placementRoutes(router, c);
  const routes = router.routes();
  const allowed = router.allowedMethods({ throw: true });

  return async (ctx, next) => {
    if (ctx.path !== CONSOLE_PREFIX && !ctx.path.startsWith(`${CONSOLE_PREFIX}/`)) {
      await next();
      return;
    }
    setPageHeaders(ctx);
    try {
      await assets.serve(ctx, async () => {
        await routes(ctx as never, async () => {
          await allowed(ctx as never, async () => {});
        });
      });
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('not_found', 'There is no such page.');
    } catch (error) {
      renderError(c, ctx, error);
    }
  };
}

function renderError(c: ConsoleContext, ctx: Parameters<Middleware>[0], error: unknown): void {
  const known = pageError(error);
  if (known.status >= 500) c.deps.logger.error({ err: error }, 'console page failed');
  for (const [name, value] of Object.entries(known.extra.headers ?? {})) ctx.set(name, value);
  const requestId = (ctx.state as { requestId?: string }).requestId;
  c.page(
    ctx,
    errorTitle(known.code),
    <ErrorBody code={known.code} detail={known.message} requestId={requestId} />,
    known.status,
  );
}
