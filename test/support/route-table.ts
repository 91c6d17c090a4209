/**
 * Reads the app's route table for tests derived from it: which routes take a path `{id}`, which answer a page, which
 * are an organisation's singletons, and what a valid body looks like (the body schema's own `example`).
 */
import type { JsonSchema, RouteDefinition } from '../../api/http/route-definition';

export const routeName = (route: RouteDefinition): string => `${route.method} ${route.path}`;

/** `/v1/...` routes that need an API key: the ones an organisation's data can leak through. */
export function tenantRoutes(routes: RouteDefinition[]): RouteDefinition[] {
  return routes.filter((r) => r.auth.kind === 'key' && r.path.startsWith('/v1/'));
}

/**
 * `/v1/webhooks/deliveries/{id}/retry` → `webhooks/deliveries`; undefined for a route without `{id}`. The sandbox's
 * simulation routes take a debt's id: `/v1/sandbox/debts/{id}/accept` → `debts`.
 */
export function idResourceOf(route: RouteDefinition): string | undefined {
  return /^\/v1\/(?:sandbox\/)?(.+?)\/\{id\}/.exec(route.path)?.[1];
}

/** A list answers `{ data, nextCursor }`; its resource is its path: `/v1/payments` → `payments`. */
export function listResourceOf(route: RouteDefinition): string | undefined {
  const schema = route.responses[200]?.schema as { required?: string[] } | undefined;
  if (route.method !== 'get' || !schema?.required?.includes('nextCursor')) return undefined;
  // A list under a resource (`/v1/debts/{id}/documents`) is tried as an {id} route: its parent is what is owned.
  if (route.path.includes('{')) return undefined;
  return route.path.replace(/^\/v1\//, '');
}

/** A GET of the caller's own single thing: no path id, not a page (`/v1/organization`, its branding, …). */
export function isSingletonRead(route: RouteDefinition): boolean {
  return route.method === 'get' && !idResourceOf(route) && !listResourceOf(route);
}

/** Query filters that take an id (`format: uuid`), e.g. `debtId`, `debtorId`. */
export function idFilters(route: RouteDefinition): string[] {
  const properties = (route.query?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(properties).filter((name) => properties[name]!.format === 'uuid');
}

/** The body the route's schema shows as its example; a body route without one cannot be tried validly. */
export function exampleBody(route: RouteDefinition): unknown {
  if (!route.body) return undefined;
  if (route.body.example === undefined) throw new Error(`${routeName(route)} has a body schema with no example`);
  return route.body.example;
}

/** Fills `{id}` (percent-encoding it, as a client would) and any other path parameter with the same value. */
export function pathWithId(route: RouteDefinition, id: string): string {
  return route.path.replace(/\{[^}]+\}/g, encodeURIComponent(id));
}

/**
 * Fills each path parameter with the id of the resource it names: `{id}` the route's `idResourceOf`, `{documentId}`
 * a `documents` id, and so on; a parameter with no id given keeps the `{id}` one.
 */
export function pathWithIds(route: RouteDefinition, idOf: (resource: string) => string | undefined): string {
  const main = idOf(idResourceOf(route) ?? '') ?? '';
  return route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => {
    const id = name === 'id' ? main : (idOf(`${name.replace(/Id$/, '')}s`) ?? main);
    return encodeURIComponent(id);
  });
}
