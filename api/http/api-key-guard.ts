/**
 * The guard every `/v1` route runs before validation: identify the key (401), charge its rate limit (429),
 * then authorise: a read-only key never writes (403 read_only_key), and the route's scope must be granted (403).
 * Rate-limit headers are set first so that every `/v1` answer carries them, refusals included.
 */
import type { Middleware } from 'koa';
import { ApiError, errors } from '../../core/platform/errors';
import { isWriteScope } from '../../core/access/scopes';
import type { KeyAuthenticator } from './key-auth';
import type { RateLimiter } from './rate-limit';
import type { RouteGuard } from './router';
import type { ApiState } from './route-definition';

export function apiKeyGuard(authenticator: KeyAuthenticator, rateLimiter: RateLimiter): RouteGuard {
  return (route) => {
    if (route.auth.kind !== 'key') return undefined;
    const scope = route.auth.scope;
    const middleware: Middleware<ApiState> = async (ctx, next) => {
      const auth = await authenticator.authenticate(ctx.get('Authorization') || undefined);
      ctx.state.auth = auth;
      ctx.state.organizationId = auth.organizationId;
      const decision = await rateLimiter.check(auth);
      ctx.set(decision.headers);
      if (!decision.allowed) {
        throw new ApiError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfterSeconds} seconds.`, {
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        });
      }
      if (scope && isWriteScope(scope) && auth.readOnly) throw errors.readOnlyKey();
      if (scope && !auth.scopes.has(scope)) throw errors.forbidden(scope);
      await next();
    };
    return middleware;
  };
}
