/** Gives every request a unique id, sent back as `X-Request-Id` on every response (errors included). */
import type { Middleware } from 'koa';
import { newRequestId } from '../../../core/events/request-cause';
import type { ApiState } from '../route-definition';

export { newRequestId };

export function requestId(): Middleware<ApiState> {
  return async (ctx, next) => {
    // Always our own id: a client-supplied one could collide, and support tickets must quote ours.
    ctx.state.requestId = newRequestId();
    ctx.state.startedAt = process.hrtime.bigint();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
