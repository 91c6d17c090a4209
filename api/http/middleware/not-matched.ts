/** After the router: a path no route serves is 404 `not_found`; a known path with another method is 405. */
import type { ParameterizedContext } from 'koa';
import { ApiError } from '../../../core/platform/errors';
import type { ApiState } from '../route-definition';
import type { ApiRouter } from '../router';

/** Throws the 404 or 405 for a request nothing below answered (problem-errors.ts renders it). */
export function refuseIfUnanswered(ctx: ParameterizedContext<ApiState>, router: ApiRouter): void {
  if (ctx.body !== undefined || ctx.status !== 404) return;
  const allowed = router.methodsFor(ctx.path);
  if (allowed.length === 0) throw new ApiError('not_found', `No route matches ${ctx.method} ${ctx.path}.`);
  const allow = [...allowed].sort().join(', ');
  throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use ${allow}.`, {
    headers: { Allow: allow },
  });
}
