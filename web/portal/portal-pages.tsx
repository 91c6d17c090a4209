/**
 * The debtor portal, mounted at /portal on each host's Koa app (ARCHITECTURE.md: pages call core/ directly
 * under their own session, and every debtor action is a lifecycle trigger). Every answer under /portal carries the
 * pages' security headers; every error is the problem catalogue rendered as a portal page, with the same status.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ApiError } from '../../core/platform/errors';
import { pageError } from '../page-errors';
import { createPortalSessionStore } from '../../core/portal/portal-sessions';
import { loadWebAssets, PORTAL_STYLESHEET } from '../assets';
import { setPageHeaders } from '../page';
import { accountRoutes } from './account-routes';
import { debtRoutes } from './debt-routes';
import { entryRoutes } from './entry-routes';
import { PortalErrorBody, portalErrorTitle } from './error-page';
import { planRoutes } from './plan-routes';
import { payRoutes } from './pay-routes';
import { loadStripeConfirmationAsset } from './stripe-confirmation-script';
import { createPortalContext, PORTAL_CSP, type PortalContext, type PortalDeps } from './portal-context';
import { themeRoute } from './theme-route';

export type { PortalDeps };

export const PORTAL_PREFIX = '/portal';

const ASSETS = `${PORTAL_PREFIX}/assets/`;

export function isPortalPath(path: string): boolean {
  return path === PORTAL_PREFIX || path.startsWith(`${PORTAL_PREFIX}/`);
}
/** The end of the portal's chain: nothing answered, which the middleware turns into its 404 page. */
const notFound = () => Promise.resolve();

export function portalPages(deps: PortalDeps): Middleware {
  const assets = loadWebAssets(PORTAL_STYLESHEET, ASSETS);
  const sessions = createPortalSessionStore({
    redis: deps.redis,
    mode: deps.config.mode,
    settings: {
      idleTimeoutMs: deps.config.portal.sessionIdleTimeoutMs,
      absoluteLifetimeMs: deps.config.portal.sessionAbsoluteLifetimeMs,
    },
  });
  const c = createPortalContext(deps, { sessions, stylesheetHref: assets.stylesheetHref });
  const stripeScript = loadStripeConfirmationAsset();
  const router = new Router();
  themeRoute(router);
  entryRoutes(router, c);
  debtRoutes(router, c);
  planRoutes(router, c);
  payRoutes(router, c, stripeScript.href);
  accountRoutes(router, c);
  const routes = router.routes();
  const allowed = router.allowedMethods({ throw: true });

  return async (ctx, next) => {
    if (!isPortalPath(ctx.path)) {
      await next();
      return;
    }
    setPageHeaders(ctx, PORTAL_CSP);
    try {
      if (ctx.path.startsWith(ASSETS)) {
        await assets.serve(ctx, async () => {
          await stripeScript.serve(ctx, notFound);
        });
      } else {
        await routes(ctx as never, async () => {
          await allowed(ctx as never, notFound);
        });
      }
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('not_found', 'There is no such page.');
    } catch (error) {
      await renderError(c, ctx, error);
    }
  };
}

async function renderError(c: PortalContext, ctx: Context, error: unknown): Promise<void> {
  const known = pageError(error);
  if (known.status >= 500) c.deps.logger.error({ err: error }, 'portal page failed');
  for (const [name, value] of Object.entries(known.extra.headers ?? {})) ctx.set(name, value);
  const requestId = (ctx.state as { requestId?: string }).requestId;
  // A visit's error pages keep its branding; a failure to read it must not hide the error itself.
  const session = await c.visit(ctx).catch(() => null);
  const frame = session ? await c.frameOf(session).catch(() => c.neutralFrame()) : c.neutralFrame();
  c.page(
    ctx,
    frame,
    portalErrorTitle(known.code),
    <PortalErrorBody code={known.code} detail={known.message} requestId={requestId} signedIn={session !== null} />,
    known.status,
  );
}
