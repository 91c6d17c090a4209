/** Gives every request a unique id, sent back as `X-Request-Id` on every response (errors included). */
import type { ParameterizedContext } from 'koa';
import { newRequestId } from '../../../core/events/request-cause';
import type { ApiState } from '../route-definition';

export { newRequestId };

/** Names the request (`ctx.state.requestId`, the header) and notes when it started, for its log line. */
export function startRequest(ctx: ParameterizedContext<ApiState>): void {
  // Always our own id: a client-supplied one could collide, and support tickets must quote ours.
  ctx.state.requestId = newRequestId();
  ctx.state.startedAt = process.hrtime.bigint();
  ctx.set('X-Request-Id', ctx.state.requestId);
}
