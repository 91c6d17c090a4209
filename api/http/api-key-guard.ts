/**
 * The key checks of every `/v1` request, in two steps.
 *
 * `authenticateV1` runs for every `/v1` path before the body is read and before routing: identify the key (401, or
 * 429 for an address with too many failures), charge its rate limit (429) and set the `X-RateLimit-*` headers, so
 * an unauthenticated request costs no body parsing and every `/v1` answer carries the headers, 404s and 405s
 * included.
 *
 * `apiKeyGuard` runs per route, once the route is known: a read-only key never writes (403 read_only_key), and the
 * route's scope must be granted (403).
 */
import type { ParameterizedContext } from 'koa';
import { ApiError, errors } from '../../core/platform/errors';
import { isWriteScope } from '../../core/access/scopes';
import type { KeyAuthenticator } from './key-auth';
import type { RateLimiter } from './rate-limit';
import type { RouteGuard } from './route-pipeline';
import type { ApiState } from './route-definition';

export function isV1Path(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** The checks of a `/v1` request (`isV1Path`), before it is routed; they throw the 401 or 429. */
export function authenticateV1(
  authenticator: KeyAuthenticator,
  rateLimiter: RateLimiter,
): (ctx: ParameterizedContext<ApiState>) => Promise<void> {
  return async (ctx) => {
    const header = ctx.get('Authorization') || undefined;
    const auth = authenticator.knownContext(header) ?? (await authenticator.authenticate(header, ctx.ip));
    ctx.state.auth = auth;
    ctx.state.organizationId = auth.organizationId;
    const decision = await rateLimiter.check(auth);
    ctx.set(decision.headers);
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfterSeconds} seconds.`, {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
  };
}

export function apiKeyGuard(): RouteGuard {
  return (route) => {
    if (route.auth.kind !== 'key') return undefined;
    const scope = route.auth.scope;
    return (ctx) => {
      const auth = ctx.state.auth;
      if (!auth) throw new Error(`key route ${route.operationId} is outside /v1, where keys are checked`);
      if (scope && isWriteScope(scope) && auth.readOnly) throw errors.readOnlyKey();
      if (scope && !auth.scopes.has(scope)) throw errors.forbidden(scope);
    };
  };
}
