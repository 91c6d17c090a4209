/**
 * The client console, mounted at /console on each host's Koa app (ARCHITECTURE.md: pages call core/ directly, under
 * a staff session, never the public API). Every answer under /console carries the pages' security headers; every
 * error is the problem catalogue rendered as a page, with the same status.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError, ERROR_CATALOGUE } from '../../core/platform/errors';
import { createSessionStore } from '../../core/staff/sessions';
import { loadWebAssets } from '../assets';
import { setPageHeaders } from '../page';
import { accountRoutes } from './account-routes';
import { brandingRoutes } from './branding-routes';
import { debtsRoutes } from './debts-routes';
import { documentRoutes } from './document-routes';
import { teamRoutes } from './team-routes';
import { portalSettingsRoutes } from './portal-settings-routes';
import { createConsoleContext, type ConsoleContext, type ConsoleDeps } from './console-context';
import { ErrorBody, errorTitle } from './error-page';
import { cookieNames } from './http';
import { sandboxRoutes } from './sandbox-routes';
import { signInRoutes } from './sign-in-routes';
import { webhookRoutes } from './webhook-routes';

export type { ConsoleDeps };

export const CONSOLE_PREFIX = '/console';

export function consolePages(deps: ConsoleDeps): Middleware {
  const assets = loadWebAssets();
  const sessions = createSessionStore({
    redis: deps.redis,
    settings: {
      idleTimeoutMs: deps.config.console.sessionIdleTimeoutMs,
      absoluteLifetimeMs: deps.config.console.sessionAbsoluteLifetimeMs,
    },
  });
  const names = cookieNames(deps.config.console.secureCookies);
  const c = createConsoleContext(deps, { sessions, names, stylesheetHref: assets.stylesheetHref });
  const router = new Router();
  signInRoutes(router, c);
  accountRoutes(router, c);
  brandingRoutes(router, c);
  debtsRoutes(router, c);
  documentRoutes(router, c);
  teamRoutes(router, c);
  portalSettingsRoutes(router, c);
  webhookRoutes(router, c);
  sandboxRoutes(router, c);
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
  const known = toApiError(error);
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

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: number }).status;
  if (status === 405) return new ApiError('method_not_allowed');
  if (status === 501) return new ApiError('method_not_allowed');
  return new ApiError('internal_error', ERROR_CATALOGUE.internal_error.detail);
}
