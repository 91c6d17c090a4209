/**
 * The pages' static assets: one stylesheet per family of pages, served under a name carrying its content hash so it
 * can be cached for a year (`immutable`); a new build is a new name. A stylesheet may be several files joined in
 * order (the shared design system, design.css, then the pages' own rules): one request, one cache entry. Read once
 * when the app is built, never at import time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { PROJECT_ROOT } from '../core/platform/project-root';

export const ASSETS_PREFIX = '/console/assets/';

export interface WebAssets {
  stylesheetHref: string;
  serve: Middleware;
}

/** The files of the console's stylesheet: the design system under the console's own rules. */
export const CONSOLE_STYLESHEET = ['design.css', 'console.css'];

/** The files of the debtor portal's stylesheet: the design system under the portal's own rules. */
export const PORTAL_STYLESHEET = ['design.css', 'portal.css'];

/**
 * The console's stylesheet by default; the debtor portal serves its own (PORTAL_STYLESHEET under /portal/assets/).
 * `files` are joined in the order given.
 */
export function loadWebAssets(
  files: string | readonly string[] = CONSOLE_STYLESHEET,
  prefix = ASSETS_PREFIX,
): WebAssets {
  const css = Buffer.concat(
    (typeof files === 'string' ? [files] : files).map((file) =>
      readFileSync(path.join(PROJECT_ROOT, 'web', 'assets', file)),
    ),
  );
  const hash = createHash('sha256').update(css).digest('hex').slice(0, 12);
  const stylesheetHref = `${prefix}site.${hash}.css`;
  return {
    stylesheetHref,
    serve: async (ctx, next) => {
      if (ctx.path !== stylesheetHref || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
        await next();
        return;
      }
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = css;
    },
  };
}
