/**
 * The resources' schemas under their names in `components.schemas`, and every inline copy of one of them in the
 * document replaced by its `$ref`, so a generated client gets `Debt`, `Plan`, … instead of anonymous types.
 * The schemas stay those of api/schemas/* (the route table's own objects): a copy is found by its content.
 */
import { brandingSchema } from '../schemas/branding';
import { debtorSchema } from '../schemas/debtors';
import { debtPreviousAttributesSchema, debtSchema } from '../schemas/debts';
import { documentSchema } from '../schemas/documents';
import { eventListSchema } from '../schemas/events';
import { organizationSchema } from '../schemas/organization';
import { placementSchema } from '../schemas/placements';
import { refundSchema } from '../schemas/refunds';
import { transactionSchema } from '../schemas/transactions';
import { deliveryDetailSchema, deliverySchema } from '../schemas/webhook-deliveries';
import { webhookConfigSchema } from '../schemas/webhooks';
import type { JsonSchema } from '../http/route-definition';
import { documentedSchema } from './documented-schema';

function child(schema: JsonSchema, ...path: string[]): JsonSchema {
  let node: unknown = schema;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  if (typeof node !== 'object' || node === null) throw new Error(`no schema at ${path.join('.')}`);
  return node as JsonSchema;
}

/** Name → schema, the larger before what they contain (a walk replaces the outermost match). */
function registry(): [string, JsonSchema][] {
  return [
    ['Debt', debtSchema],
    ['DebtPreviousAttributes', debtPreviousAttributesSchema],
    ['Plan', child(debtSchema, 'properties', 'plan')],
    ['Document', documentSchema],
    ['Placement', placementSchema],
    ['Debtor', debtorSchema],
    ['Transaction', transactionSchema],
    ['Refund', refundSchema],
    ['Organization', organizationSchema],
    ['Branding', brandingSchema],
    ['WebhookConfig', webhookConfigSchema],
    ['DeliveryDetail', deliveryDetailSchema],
    ['Delivery', deliverySchema],
    ['Attempt', child(deliveryDetailSchema, 'properties', 'attempts', 'items')],
    ['Event', child(eventListSchema, 'properties', 'data', 'items')],
  ];
}

let cached: { byContent: Map<string, string>; components: Record<string, unknown> } | undefined;

function named(): { byContent: Map<string, string>; components: Record<string, unknown> } {
  if (cached) return cached;
  const byContent = new Map<string, string>();
  for (const [name, schema] of registry()) {
    byContent.set(JSON.stringify(schema), name);
    byContent.set(JSON.stringify(documentedSchema(schema)), name);
  }
  const components: Record<string, unknown> = {};
  for (const [name, schema] of registry()) {
    const own = documentedSchema(schema) as Record<string, unknown>;
    components[name] = Object.fromEntries(Object.entries(own).map(([key, value]) => [key, refs(value, byContent)]));
  }
  cached = { byContent, components };
  return cached;
}

/** `components.schemas` entries for the named resources. */
export function namedSchemas(): Record<string, unknown> {
  return named().components;
}

/** The value with every named schema it contains (outermost first) replaced by its `$ref`. */
export function withSchemaRefs<T>(value: T): T {
  return refs(value, named().byContent) as T;
}

function refs(value: unknown, byContent: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => refs(item, byContent));
  if (typeof value !== 'object' || value === null) return value;
  const name = byContent.get(JSON.stringify(value));
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      // Examples are data, not schemas: left as they are.
      [key, key === 'example' || key === 'examples' ? inner : refs(inner, byContent)],
    ),
  );
}
