/**
 * Builds the API's router from route declarations. Per route: deprecation headers → the route's guards
 * (auth, rate limit, idempotency: supplied by the caller) → validation → handler → response.
 *
 * Routes are grouped by the part of the path that picks them (`/v1/<resource>`, else the first segment), one
 * @koa/router per group: a request is matched against its group's few routes, not against every route of the API
 * (koa-router tests each route's pattern in turn, which was a measurable share of a cheap request's time). A route is
 * one middleware running its checks in turn, not a chain of them: each layer is paid on every request.
 */
import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from '../../core/platform/errors';
import { JsonPage } from '../../core/platform/json-page';
import {
  toKoaPath,
  type ApiContext,
  type ApiState,
  type HandlerResult,
  type RouteDefinition,
} from './route-definition';
import { cursorBinding } from './cursor-binding';
import { foldDeepObjects, objectParameters } from './deep-object-query';
import { compileValidator, type Validator } from './validation';
import type { Executor, RouteCheck, RouteGuard } from './route-pipeline';

export interface ApiRouter {
  /** Runs the route the request's method and path name; a request no route serves goes on to `next`. */
  routes: Middleware<ApiState>;
  /** The methods `path` is served with (none: no route has this path), for the 404 and 405 answers. */
  methodsFor(path: string): string[];
}

/** The part of a path that picks its group of routes: `/v1/<resource>` under `/v1/`, else the first segment. */
export function routeGroupOf(path: string): string {
  const end = path.indexOf('/', path.startsWith('/v1/') ? 4 : 1);
  return end === -1 ? path : path.slice(0, end);
}

export function buildRouter(routes: RouteDefinition[], execute: Executor, guards: RouteGuard[] = []): ApiRouter {
  const groups = new Map<string, Router<ApiState>>();
  // The routes without path parameters by method and exact path (`GET /v1/organization`): a map lookup instead of
  // matching the group's patterns, on most of the busiest routes. Only where koa-router picks the same route anyway:
  // when no route declared before it matches its path too (found as it is declared: later ones cannot come first).
  const fixed = new Map<string, Middleware>();
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`route declared twice: ${key}`);
    seen.add(key);
    const group = routeGroupOf(route.path);
    if (group.includes('{')) throw new Error(`route ${key}: a path parameter where the route's group is named`);
    // strict: '/docs' and '/docs/' are different routes (the first redirects to the second); sensitive: '/V1/…'
    // is not '/v1/…' (the key checks apply to '/v1/' exactly).
    if (!groups.has(group)) groups.set(group, new Router<ApiState>({ strict: true, sensitive: true }));
    const checks = guards.map((guard) => guard(route)).filter((c): c is RouteCheck => c !== undefined);
    const middleware = runRoute(route, checks, execute);
    const router = groups.get(group)!;
    const path = toKoaPath(route.path);
    router[route.method](route.operationId, path, middleware);
    if (!route.path.includes('{')) {
      const method = route.method.toUpperCase();
      const first = router.match(path, method).pathAndMethod.find((layer) => layer.methods.length > 0);
      if (first?.name === route.operationId) fixed.set(`${method} ${path}`, middleware);
    }
  }
  return {
    // koa-router matches (in the request's group) and decodes the path's parameters; the route's middleware is then
    // called directly: its per-request dispatch (a chain composed for each request) costs more than the match here.
    // Route middleware never calls `next`, so the first route matching the path and method answers, as in koa-router.
    routes: (ctx, next): Promise<unknown> => {
      const direct = fixed.get(`${ctx.method} ${ctx.path}`);
      if (direct) {
        (ctx as unknown as { params: Record<string, string> }).params = {};
        return direct(ctx, next) as Promise<unknown>;
      }
      const router = groups.get(routeGroupOf(ctx.path));
      const layer = router?.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
      if (!layer) return next();
      (ctx as unknown as { params: Record<string, string> }).params = layer.params(
        ctx.path,
        layer.captures(ctx.path),
        {},
      );
      return layer.stack[0]!(ctx as never, next) as Promise<unknown>;
    },
    methodsFor(path) {
      const router = groups.get(routeGroupOf(path));
      if (!router) return [];
      return [...new Set(router.match(path, 'GET').path.flatMap((layer) => layer.methods))];
    },
  };
}

/** RFC 9745 `Deprecation` (a structured-field date), RFC 8594 `Sunset` (an HTTP date), and the migration guide. */
function setDeprecationHeaders(ctx: ApiContext, deprecation: NonNullable<RouteDefinition['deprecated']>): void {
  ctx.set('Deprecation', `@${Math.floor(Date.parse(deprecation.since) / 1000)}`);
  ctx.set('Sunset', new Date(deprecation.sunset).toUTCString());
  ctx.set('Link', `<${deprecation.link}>; rel="deprecation"; type="text/html"`);
}

/** A route as one middleware: its checks in turn, validation, the handler through the executor, the answer. */
function runRoute(route: RouteDefinition, checks: RouteCheck[], execute: Executor): Middleware {
  const validators: Partial<Record<'params' | 'query' | 'body', Validator>> = {
    params: route.params ? compileValidator('params', route.params) : undefined,
    query: route.query ? compileValidator('query', route.query) : undefined,
    body: route.body ? compileValidator('body', route.body) : undefined,
  };
  const cursors = cursorBinding(route);
  const deepObjects = objectParameters(route.query);
  return async (context) => {
    const ctx = context as ApiContext;
    ctx.state.route = route;
    if (route.deprecated) setDeprecationHeaders(ctx, route.deprecated);
    for (const check of checks) {
      const checking = check(ctx);
      if (checking) await checking; // most checks are synchronous: no turn of the event loop for them
    }
    const params = { ...(ctx as unknown as { params: Record<string, string> }).params };
    // No query string, no parse (Koa's `query` parses and caches one per request).
    const query = ctx.querystring === '' ? {} : foldDeepObjects({ ...ctx.query }, deepObjects);
    const body = readBody(ctx, route);
    validators.params?.(params);
    if (validators.query) validators.query(query);
    else if (Object.keys(query).length > 0 && route.auth.kind === 'key') {
      throw new ApiError('invalid_request', `Unknown query parameter: ${Object.keys(query).join(', ')}.`);
    }
    if (validators.body) validators.body(body);
    // The executor runs the route's `prepare` once it has checked the Idempotency-Key.
    const organizationId = ctx.state.auth?.organizationId;
    if (!cursors || !organizationId) {
      writeResult(ctx, await execute(ctx, route, { body, query, params }));
      return;
    }
    cursors.open(organizationId, query);
    writeResult(ctx, cursors.bind(organizationId, query, await execute(ctx, route, { body, query, params })));
  };
}

function readBody(ctx: ApiContext, route: RouteDefinition): unknown {
  const parsed = (ctx.request as unknown as { body?: unknown }).body;
  // Undefined unless a body was sent: json-body only parses requests that carry one.
  const hasBody = parsed !== undefined;
  if (!route.body) {
    // `{}` is what many clients send when there is nothing to send: it says nothing, so it is taken as no body.
    if (hasBody && !isEmptyObject(parsed)) {
      throw new ApiError('invalid_request', 'This operation takes no request body (send none, or `{}`).');
    }
    return undefined;
  }
  if (!hasBody) {
    if (route.optionalBody) return {};
    throw new ApiError('invalid_request', 'A JSON request body is required.');
  }
  return parsed;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

export function writeResult(ctx: ApiContext, result: HandlerResult): void {
  if (result.headers) for (const name in result.headers) ctx.set(name, result.headers[name]!);
  ctx.status = result.status;
  if (result.body === undefined) return;
  if (typeof result.body === 'string' || Buffer.isBuffer(result.body) || result.body instanceof Readable) {
    ctx.type = result.contentType ?? 'text/plain; charset=utf-8';
    ctx.body = result.body;
    // Koa drops Content-Length when the body is a stream; a stream of known size (a document) keeps it.
    const length = result.headers?.['Content-Length'];
    if (result.body instanceof Readable && length !== undefined) ctx.length = Number(length);
    return;
  }
  ctx.type = result.contentType ?? 'application/json; charset=utf-8';
  // A page whose JSON PostgreSQL wrote goes out as it is, never parsed here.
  ctx.body = result.body instanceof JsonPage ? result.body.toText() : JSON.stringify(result.body);
}
