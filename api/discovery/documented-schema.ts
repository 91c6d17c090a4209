/**
 * The schema as the OpenAPI document shows it: a route's validation schema with the keywords its handler checks
 * itself (`checkedByHandler`) merged in, so the document says exactly what the API accepts.
 */
import { HANDLER_CHECKS, type JsonSchema } from '../http/route-definition';

export function documentedSchema(schema: JsonSchema): JsonSchema {
  return documented(schema) as JsonSchema;
}

function documented(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(documented);
  if (!isObject(value)) return value;
  const { [HANDLER_CHECKS]: checks, ...rest } = value;
  const merged = isObject(checks) ? merge(rest, checks) : rest;
  return Object.fromEntries(Object.entries(merged).map(([key, inner]) => [key, documented(inner)]));
}

/** Objects merge key by key, arrays (`required`) are united, anything else is the handler's. */
function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    if (isObject(current) && isObject(value)) out[key] = merge(current, value);
    else if (Array.isArray(current) && Array.isArray(value))
      out[key] = [...new Set<unknown>([...(current as unknown[]), ...(value as unknown[])])];
    else out[key] = value;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
