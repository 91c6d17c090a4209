/** Runs after the router: a path no route serves is 404 `not_found`; a known path with another method is 405. */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from '../../../core/platform/errors';
import type { ApiState } from '../route-definition';

export function notMatched(router: Router<ApiState>): Middleware<ApiState> {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    const { path: layersForPath } = router.match(ctx.path, ctx.method);
    const allowed = new Set(layersForPath.flatMap((layer) => layer.methods));
    if (allowed.size === 0) throw new ApiError('not_found', `No route matches ${ctx.method} ${ctx.path}.`);
    const allow = [...allowed].sort().join(', ');
    throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use ${allow}.`, {
      headers: { Allow: allow },
    });
  };
}
