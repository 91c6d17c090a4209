/**
 * Sandbox host only: every authenticated `/v1` request tells its tenant's reset workflow that the tenant is in use
 * (debounced to one signal a minute per tenant). Fire and forget: the request neither waits for it nor fails with it.
 */
import type { Middleware } from 'koa';
import type { ActivityTouch } from '../../../core/sandbox/activity-touch';
import type { ApiState } from '../route-definition';

export function sandboxActivity(activity: ActivityTouch): Middleware<ApiState> {
  return async (ctx, next) => {
    const organizationId = ctx.state.auth?.organizationId;
    if (organizationId) void activity.touch(organizationId);
    await next();
  };
}
