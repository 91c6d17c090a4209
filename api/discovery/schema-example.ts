/**
 * An example value built from a JSON Schema, deterministically: every property the schema names is there, taken from
 * the hint where the hint has it (an example of the route table, say) and made up from the schema where it does not
 * (its `examples`, `example`, `default`, `const` or first `enum` value, else a fixed value of its type and format).
 * So an example cannot miss a field the schema gained, nor carry one it lost.
 */
import type { JsonSchema } from '../http/route-definition';

type Schema = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';

/** Fixed values by string `format`; any other string is `"string"` (padded to its `minLength`). */
const FORMATS: Record<string, string> = {
  'date-time': '2026-11-22T09:00:00.000Z',
  date: '2026-11-22',
  uuid: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
};

/** `components` resolves the `#/components/schemas/…` references the schema holds. */
export function schemaExample(schema: JsonSchema, hint: unknown, components: Record<string, unknown>): unknown {
  return example(schema, hint, components, 0);
}

function example(schema: Schema, hint: unknown, components: Record<string, unknown>, depth: number): unknown {
  if (depth > 20) throw new Error('schemaExample: schema nested too deep (a reference cycle?)');
  const next = (inner: unknown, innerHint: unknown) =>
    example(isObject(inner) ? inner : {}, innerHint, components, depth + 1);
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(COMPONENT_REF)) throw new Error(`schemaExample: cannot resolve ${schema.$ref}`);
    const target = components[schema.$ref.slice(COMPONENT_REF.length)];
    if (!isObject(target)) throw new Error(`schemaExample: no component ${schema.$ref}`);
    return next(target, hint);
  }
  if ('const' in schema) return schema.const;
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (hint !== undefined) {
    if (isObject(hint) && properties)
      return Object.fromEntries(Object.entries(properties).map(([key, inner]) => [key, next(inner, hint[key])]));
    if (Array.isArray(hint) && isObject(schema.items)) return hint.map((item) => next(schema.items, item));
    return hint;
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (branches && branches.length > 0) return next(branches[0], undefined);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== 'null') ?? (types.includes('null') ? 'null' : properties ? 'object' : undefined);
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(properties ?? {}).map(([key, inner]) => [key, next(inner, undefined)]));
    case 'array':
      return isObject(schema.items) ? [next(schema.items, undefined)] : [];
    case 'string': {
      const fixed = FORMATS[schema.format as string];
      if (fixed) return fixed;
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'string'.padEnd(minLength, 'x');
    }
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 100;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
