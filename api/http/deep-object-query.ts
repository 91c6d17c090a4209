/**
 * OpenAPI's `deepObject` query style for the object parameters a route declares (`metadata[crmId]=C-1` becomes
 * `{ metadata: { crmId: 'C-1' } }`), as openapi-fetch and most generated clients send them. Only declared object
 * parameters are folded: any other bracketed name stays as it is and is refused as an unknown parameter.
 */
import type { JsonSchema } from './route-definition';

const BRACKETED = /^([A-Za-z][A-Za-z0-9]*)\[([^\]]*)\]$/;

/** The names of `schema`'s top-level properties of type object. */
export function objectParameters(schema: JsonSchema | undefined): Set<string> {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  return new Set(Object.keys(properties).filter((name) => properties[name]!.type === 'object'));
}

export function foldDeepObjects(query: Record<string, unknown>, objects: Set<string>): Record<string, unknown> {
  if (objects.size === 0) return query;
  const folded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const match = BRACKETED.exec(name);
    if (match && objects.has(match[1]!)) {
      const target = (folded[match[1]!] ??= {}) as Record<string, unknown>;
      target[match[2]!] = value;
    } else folded[name] = value;
  }
  return folded;
}
