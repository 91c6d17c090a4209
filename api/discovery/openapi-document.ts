/**
 * Builds /openapi/v1.json (OpenAPI 3.1.1) from the route declarations and the error catalogue.
 * Nothing here is written by hand per endpoint: a route that exists is documented, with its schemas and errors.
 * Each route's operation is openapi-operation.ts; the `webhooks` section is openapi-webhooks.ts.
 */
import { ERROR_CATALOGUE } from '../../core/platform/errors';
import type { Config } from '../../core/platform/config';
import type { JsonSchema, RouteDefinition } from '../http/route-definition';
import { eventComponentSchemas } from '../schemas/event-data';
import { namedSchemas, withSchemaRefs } from './named-schemas';
import { BEARER_SCHEME, operation } from './openapi-operation';
import { webhooksSection } from './openapi-webhooks';

export const API_VERSION = '1.0.0';

/** Tags in reading order, with what each groups; a tag not listed here follows, alphabetically. */
const TAGS: { name: string; description: string }[] = [
  { name: 'Organization', description: 'Your organisation and the branding of its debtor portal.' },
  { name: 'Debts', description: 'Raise debts against debtors, read and amend them.' },
  { name: 'Placements', description: 'Raise many debts at once from a file of accounts (/docs/placements).' },
  { name: 'Debtors', description: 'The people your debts are owed by.' },
  { name: 'Transactions', description: 'Money movements on your debts; payments are the inbound, succeeded ones.' },
  { name: 'Webhooks', description: 'Your receiver, its signed deliveries, and the events they carry.' },
  {
    name: 'Sandbox',
    description: 'Sandbox host only: play the debtor and the payment processor, and fire timers now (/docs/sandbox).',
  },
  { name: 'Health', description: 'Whether this host and its dependencies answer.' },
  { name: 'Discovery', description: 'This description, the interactive references and the guides.' },
  { name: 'Operations', description: 'For operators.' },
];

const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri', description: '`{error_base_url}/<code>`; opens the code’s documentation.' },
    title: { type: 'string', enum: Object.keys(ERROR_CATALOGUE), description: 'The short error code.' },
    status: { type: 'integer', description: 'Mirrors the HTTP status.' },
    detail: { type: 'string', description: 'Human-readable explanation.' },
    requestId: { type: 'string', description: 'Same as the `X-Request-Id` header.' },
    existingDebtId: {
      type: 'string',
      format: 'uuid',
      description: 'With `external_account_id_in_use`: the open debt that holds the `externalAccountId`.',
    },
    errors: {
      type: 'array',
      description: 'For validation errors: each offending field.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

export interface ServerEntry {
  url: string;
  description: string;
}

/** Both hosts, this one first, so "try it" in the references calls the host the reader is on. */
export function hostServers(config: Pick<Config, 'mode' | 'productionBaseUrl' | 'sandboxBaseUrl'>): ServerEntry[] {
  const production = { url: config.productionBaseUrl, description: 'Production: accepts `ak_live_` keys only' };
  const sandbox = { url: config.sandboxBaseUrl, description: 'Sandbox: accepts `ak_test_` keys only' };
  return config.mode === 'production' ? [production, sandbox] : [sandbox, production];
}

export function buildOpenApiDocument(routes: RouteDefinition[], config: Config): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const listed = routes.filter(isApiOperation);
  for (const route of listed) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route, config);
  }
  const used = new Set(listed.flatMap((r) => r.tags));
  const known = TAGS.filter((t) => used.has(t.name));
  const others = [...used].filter((name) => !TAGS.some((t) => t.name === name)).sort();
  const tags = [...known, ...others.map((name) => ({ name }))];
  return {
    openapi: '3.1.1',
    info: {
      title: 'Debt Recovery Client Public API',
      version: API_VERSION,
      description:
        'Raise debts against debtors, read the debts, debtors, payments and transactions your organisation owns, ' +
        'brand the debtor portal, and receive signed webhooks. Guides: `/docs/`.',
    },
    // This host only: a generated client's default base URL is the host the document came from.
    servers: hostServers(config).slice(0, 1),
    tags,
    paths: withSchemaRefs(paths),
    webhooks: webhooksSection(),
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: '`Authorization: Bearer ak_live_…` (production) or `ak_test_…` (sandbox).',
        },
      },
      schemas: { ...namedSchemas(), ...eventComponentSchemas(), Problem: PROBLEM_SCHEMA },
    },
  };
}

/** Tags whose routes serve the host, not the API: the discovery pages and the health checks are not operations. */
const NOT_API_TAGS = new Set(['Discovery', 'Health']);

/** Whether the document lists the route as an API operation. */
export function isApiOperation(route: RouteDefinition): boolean {
  return !route.internal && !route.tags.some((tag) => NOT_API_TAGS.has(tag));
}
