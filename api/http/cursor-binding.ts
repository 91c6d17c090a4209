/**
 * Binds a list's cursors to the organisation and the filters they were made for (every query parameter but `limit`
 * and `cursor`), for every list route at once: the router opens the cursor a request brings and binds the
 * `nextCursor` its page answers. A cursor used by another organisation, or with other filter values, is refused
 * instead of silently paging another result set. `limit` may change from page to page.
 *
 * A bound cursor is `<cursor of the list>.<tag>`, the tag being 16 base64url characters of a SHA-256 of the
 * organisation, the route and the filters: still opaque, barely longer.
 */
import { hash } from 'node:crypto';
import { errors } from '../../core/platform/errors';
import { JsonPage } from '../../core/platform/json-page';
import type { HandlerResult, RouteDefinition } from './route-definition';

export interface CursorBinding {
  /** Replaces `query.cursor` by the list's own cursor, or throws invalid_request if it was made for another scope. */
  open(organizationId: string, query: Record<string, unknown>): void;
  /** Binds the page's `nextCursor` to this request's scope. */
  bind(organizationId: string, query: Record<string, unknown>, result: HandlerResult): HandlerResult;
}

const UNBOUND = new Set(['limit', 'cursor']);

/** Undefined for a route that takes no cursor. */
export function cursorBinding(route: RouteDefinition): CursorBinding | undefined {
  const properties = (route.query?.properties ?? {}) as Record<string, unknown>;
  if (!('cursor' in properties)) return undefined;
  const tagOf = (organizationId: string, query: Record<string, unknown>) => scopeTag(organizationId, route, query);
  return {
    open(organizationId, query) {
      if (typeof query.cursor !== 'string') return;
      const tag = tagOf(organizationId, query);
      const cut = query.cursor.lastIndexOf('.');
      if (cut < 0 || query.cursor.slice(cut + 1) !== tag) throw foreignCursor();
      query.cursor = query.cursor.slice(0, cut);
    },
    bind(organizationId, query, result) {
      if (result.body instanceof JsonPage) {
        const cursor = result.body.nextCursor;
        if (cursor === null) return result;
        return { ...result, body: result.body.withCursor(`${cursor}.${tagOf(organizationId, query)}`) };
      }
      const body = result.body as { nextCursor?: unknown } | undefined;
      if (typeof body?.nextCursor !== 'string') return result;
      return { ...result, body: { ...body, nextCursor: `${body.nextCursor}.${tagOf(organizationId, query)}` } };
    },
  };
}

function scopeTag(organizationId: string, route: RouteDefinition, query: Record<string, unknown>): string {
  const filters = Object.keys(query)
    .filter((name) => !UNBOUND.has(name) && query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  // One-shot hash: 0.3 µs against createHash's 0.75–0.95 µs here, on every page of every list.
  return hash('sha256', JSON.stringify([organizationId, route.method, route.path, filters]), 'base64url').slice(0, 16);
}

function foreignCursor() {
  return errors.invalidRequest(
    'The cursor was made for another organisation or other filters: repeat the first page’s filters, or start again without a cursor.',
    [{ path: 'query.cursor', message: 'is not a cursor of this list with these filters' }],
  );
}
