/**
 * Rendering a page: preact-render-to-string (text and attributes escaped by default) inside the one layout; and the
 * pages' security headers, set once per request by each family of pages' middleware (console, portal, email opt-out)
 * for every answer it gives, error pages included: a strict Content-Security-Policy (no script at all, inline or not;
 * styles from this origin only; forms post only here; no framing), Referrer-Policy same-origin (a sign-in link's
 * token never leaves in a Referer to another site; same-origin form posts keep their Origin, which no-referrer turns
 * into "null"), and no caching of pages that show account data.
 */
import type { Context } from 'koa';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The pages' security headers; `csp` for pages with a policy of their own (the portal's allows https images). */
export function setPageHeaders(ctx: Context, csp = PAGE_CSP): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
}

/** The page as the answer; its headers are its middleware's (`setPageHeaders`). */
export function sendPage(ctx: Context, page: VNode, status = 200): void {
  sendHtml(ctx, `<!doctype html>${renderToString(page)}`, status);
}

/**
 * A page's HTML, rendered already (around a kept layout: portal-layout.tsx, layout-shell.tsx), as the answer. Encoded
 * here once: a string body is measured for its Content-Length (a pass over the page) and encoded again as it is
 * written, and the pages' text (their `–`, `✓`, `·`) is two-byte in V8, which makes both passes slow.
 */
export function sendHtml(ctx: Context, html: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = Buffer.from(html, 'utf8');
}
