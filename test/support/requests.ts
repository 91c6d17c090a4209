/** Builds a request for any declared route: path parameters filled with fresh UUIDs, a JSON body where one is taken. */
import { randomUUID } from 'node:crypto';
import type { RouteDefinition } from '../../api/http/route-definition';

export function routeUrl(baseUrl: string, route: RouteDefinition): string {
  return baseUrl + route.path.replace(/\{[^}]+\}/g, () => randomUUID());
}

export function routeRequest(route: RouteDefinition, headers: Record<string, string>): RequestInit {
  const init: RequestInit = { method: route.method.toUpperCase(), headers: { ...headers } };
  if (route.body) {
    init.body = '{}';
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  return init;
}
