/**
 * One route as an OpenAPI operation (openapi-document.ts assembles them): its parameters, request body, security,
 * success responses, and an error response per status its declaration says it can answer, with each code's example.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '../../core/platform/errors';
import type { Config } from '../../core/platform/config';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../core/platform/idempotency-store';
import { IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency-answers';
import type { JsonSchema, ResponseSpec, RouteDefinition } from '../http/route-definition';
import { documentedSchema } from './documented-schema';

/** The one security scheme: `Authorization: Bearer <key>`. The reference page selects it by this name. */
export const BEARER_SCHEME = 'bearerApiKey';

const REQUEST_ID_HEADER = {
  description: 'Unique id of this request; quote it in support tickets.',
  schema: { type: 'string' },
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Size of the window closest to running out.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Calls left in that window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when that window refills.', schema: { type: 'integer' } },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: the same key with the same request within 24 hours replays the saved response. ' +
    `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, no space at either end.`,
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** The error codes an operation can answer, from what its declaration says it does. */
export function errorCodesFor(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(['internal_error']);
  const add = (...more: ErrorCode[]) => more.forEach((code) => codes.add(code));
  if (route.params || route.query || route.body) add('invalid_request');
  // The body parser runs before routing for every method that may carry a body, declared or not.
  if (route.method !== 'get') add('invalid_request', 'payload_too_large', 'unsupported_media_type');
  if (route.auth.kind === 'key') {
    // Unknown query parameters are refused on every /v1 route; every /v1 route reads the database.
    add('invalid_request', 'unauthenticated', 'rate_limited', 'service_unavailable');
    if (route.auth.scope) add('forbidden');
    if (route.auth.scope?.endsWith(':write')) add('read_only_key');
    if (route.method !== 'get') add('idempotency_conflict', 'idempotency_in_progress');
  }
  add(...(route.errors ?? []));
  return [...codes];
}

export function operation(route: RouteDefinition, config: Config): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    responses: withHeaders(
      { ...successResponses(route.responses), ...errorResponses(route, config) },
      route.auth.kind === 'key' ? RATE_LIMIT_HEADERS : {},
    ),
  };
  if (route.description) op.description = route.description;
  if (route.deprecated) {
    op.deprecated = true;
    op.description =
      `${route.description ?? ''}\n\nDeprecated since ${route.deprecated.since}; removed after ${route.deprecated.sunset}. Migration: ${route.deprecated.link}`.trim();
  }
  op.security = route.auth.kind === 'key' ? [{ [BEARER_SCHEME]: [] }] : [];
  if (route.auth.kind === 'key') op['x-required-scope'] = route.auth.scope;
  const parameters = [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')];
  if (route.auth.kind === 'key' && route.method !== 'get') parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  if (parameters.length > 0) op.parameters = parameters;
  if (route.multipart) {
    const { schema, encoding } = route.multipart;
    op.requestBody = {
      required: true,
      content: { 'multipart/form-data': { schema: documentedSchema(schema), ...(encoding ? { encoding } : {}) } },
    };
  } else if (route.body) {
    op.requestBody = {
      required: !route.optionalBody,
      content: { 'application/json': { schema: documentedSchema(route.body) } },
    };
  }
  return op;
}

function withHeaders(responses: Record<string, unknown>, headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const r = response as { headers?: Record<string, unknown> };
      return [status, { ...r, headers: { ...r.headers, ...headers } }];
    }),
  );
}

function parametersOf(declared: JsonSchema | undefined, location: 'path' | 'query'): unknown[] {
  if (!declared) return [];
  const schema = documentedSchema(declared);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, propertySchema]) => {
    const { description, ...rest } = propertySchema as { description?: string };
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      // An object parameter is sent as `name[key]=value` (api/http/deep-object-query.ts).
      ...((rest as JsonSchema).type === 'object' ? { style: 'deepObject', explode: true } : {}),
      schema: rest,
    };
  });
}

function successResponses(responses: Record<number, ResponseSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(responses)) {
    const headers = { 'X-Request-Id': REQUEST_ID_HEADER, ...(spec.headers ?? {}) };
    const types = spec.contentTypes ?? [spec.contentType ?? 'application/json'];
    const content = spec.schema
      ? Object.fromEntries(
          types.map((type) => [
            type,
            { schema: spec.schema, ...(spec.example !== undefined ? { example: spec.example } : {}) },
          ]),
        )
      : undefined;
    out[status] = { description: spec.description, headers, ...(content ? { content } : {}) };
  }
  return out;
}

function errorResponses(route: RouteDefinition, config: Config): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(route)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const examples = Object.fromEntries(
      codes.map((code) => [
        code,
        {
          summary: ERROR_CATALOGUE[code].when,
          value: {
            type: `${config.errorBaseUrl}/${code}`,
            title: code,
            status,
            detail: ERROR_CATALOGUE[code].detail,
            requestId: 'req_0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c',
          },
        },
      ]),
    );
    const headers: Record<string, unknown> = { 'X-Request-Id': REQUEST_ID_HEADER };
    if (status === 429)
      headers['Retry-After'] = { description: 'Seconds until the window refills.', schema: { type: 'integer' } };
    if (status === 405) headers.Allow = { description: 'Methods this path accepts.', schema: { type: 'string' } };
    const when = (code: ErrorCode) => [ERROR_CATALOGUE[code].when, route.errorCases?.[code]].filter(Boolean).join(' ');
    out[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${when(code)}`).join(' '),
      headers,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
    };
  }
  return out;
}
