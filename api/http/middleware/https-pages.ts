/**
 * The pages that set cookies (the console, the debtor portal, the email opt-out page), where those cookies are
 * `Secure` (APP_ENV=production, or an https public URL): they are served over https only. A request that reached the
 * app over plain HTTP (neither a TLS socket nor a trusted proxy's `X-Forwarded-Proto: https`: forwarded-protocol.ts)
 * is sent to the same path on the public https URL with a 308, or, when the configured public URL is not https itself
 * (a misconfiguration: redirecting there would loop), answered with a page that says what to set. Never a 500 from a
 * cookie the `cookies` module refuses to send in clear. Undefined (no layer at all) where neither applies: development
 * and the tests pay nothing on every request.
 *
 * Behind https, a redirect's relative `Location` (`/console`) is made absolute on the public URL, so every redirect
 * names the public https host whatever the proxy forwarded as `Host`.
 *
 * Everything else (the API under `/v1`, the index, the guides and the OpenAPI document, the health check, Stripe's
 * signed webhook) carries no cookie and is answered as it arrived: the deployment's proxy is what redirects a
 * browser's http:// to https:// at the edge (docs/operators/production-profile.md).
 */
import type { Middleware } from 'koa';
import { setPageHeaders } from '../../../web/page';
import { OPT_OUT_PATH } from '../../../core/notifications/opt-out-links';
import type { ApiState } from '../route-definition';

const COOKIE_PAGES = new RegExp(`^(?:/console(?:/|$)|/portal(?:/|$)|${OPT_OUT_PATH})`);

export function httpsPages(options: {
  secureCookies: boolean;
  publicBaseUrl: string;
}): Middleware<ApiState> | undefined {
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const publicIsHttps = publicOrigin.startsWith('https:');
  if (!options.secureCookies && !publicIsHttps) return undefined;
  return async (ctx, next) => {
    if (!COOKIE_PAGES.test(ctx.path)) {
      await next();
      return;
    }
    if (!ctx.secure && options.secureCookies) {
      setPageHeaders(ctx);
      if (publicIsHttps) {
        ctx.status = 308;
        ctx.set('Location', `${publicOrigin}${ctx.originalUrl}`);
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = `This page is served over HTTPS only: ${publicOrigin}${ctx.originalUrl}\n`;
        return;
      }
      ctx.status = 403;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body =
        'This page is served over HTTPS only, and this server does not know its public https address.\n' +
        'Operators: set PUBLIC_BASE_URL to the https URL your TLS proxy serves, and TRUSTED_PROXIES to that ' +
        "proxy's address (docs/operators/production-profile.md).\n";
      return;
    }
    await next();
    // Koa 3 answers undefined for a header that is not set.
    const location = ctx.response.get('Location') as string | undefined;
    if (publicIsHttps && location?.startsWith('/') && !location.startsWith('//')) {
      ctx.set('Location', `${publicOrigin}${location}`);
    }
  };
}
