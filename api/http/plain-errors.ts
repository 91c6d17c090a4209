/**
 * ajv's findings in words a client understands: "must be a string", "must not be empty", "must be
 * an ISO 8601 date-time", never the validator's own text ("must NOT have fewer than 1 properties", "must match a
 * schema in anyOf"). Each finding keeps the field's path; a failed `anyOf`/`oneOf` says once that the value matches
 * none of the accepted forms instead of listing every branch's complaint.
 */
import type { ErrorObject } from 'ajv/dist/2020';
import type { FieldError } from '../../core/platform/errors';

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a JSON array',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  'date-time': 'an ISO 8601 date and time, e.g. 2026-11-25T09:30:00Z',
  date: 'a date as YYYY-MM-DD',
  uuid: 'a UUID',
  email: 'an email address',
  uri: 'an absolute URL',
};

function typeName(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map((t) => TYPE_NAMES[String(t)] ?? String(t));
  return names.join(' or ');
}

/** The message for one ajv error, without its path; a finding about a key (`propertyNames`) names the key. */
export function plainMessage(e: ErrorObject): string {
  const message = valueMessage(e);
  return e.propertyName === undefined ? message : `has a key ${JSON.stringify(e.propertyName)} that ${message}`;
}

function valueMessage(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `must be ${typeName(p.type)}`;
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not a recognised field';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minItems':
      return p.limit === 1 ? 'must not be empty' : `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'minProperties':
      return p.limit === 1 ? 'must name at least one field' : `must name at least ${String(p.limit)} fields`;
    case 'maxProperties':
      return `must name at most ${String(p.limit)} fields`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'format':
      return `must be ${FORMAT_NAMES[String(p.format)] ?? `a valid ${String(p.format)}`}`;
    case 'pattern':
      return 'is not in the expected form (see this field in the API reference)';
    case 'anyOf':
    case 'oneOf':
      return 'does not match any of the accepted forms (see this field in the API reference)';
    case 'not':
      return 'is not allowed here';
    case 'dependentRequired':
      return `needs ${String(p.missingProperty)} as well`;
    case 'uniqueItems':
      return 'must not repeat an item';
    default:
      return 'is invalid';
  }
}

/**
 * The field errors of a failed validation, one per field and finding: a branch's complaint inside a failed
 * `anyOf`/`oneOf` is folded into that keyword's one message, and duplicates go.
 */
export function plainFieldErrors(errors: ErrorObject[], pathOf: (e: ErrorObject) => string): FieldError[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath);
  const insideUnion = (e: ErrorObject) => unions.some((path) => e.schemaPath.startsWith(`${path}/`));
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const e of errors) {
    // `propertyNames` repeats the finding about the key, which says more.
    if (insideUnion(e) || e.keyword === 'propertyNames') continue;
    const field = { path: pathOf(e), message: unionOfFormats(e, errors) ?? plainMessage(e) };
    const key = `${field.path}\n${field.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      result.push(field);
    }
  }
  return result;
}

/**
 * A failed union whose every branch is a string format (a date, or a date and time) says which forms it takes: "must
 * be a date as YYYY-MM-DD or an ISO 8601 date and time", rather than pointing at the reference.
 */
function unionOfFormats(union: ErrorObject, errors: ErrorObject[]): string | undefined {
  if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') return undefined;
  const branches = errors.filter((e) => e.schemaPath.startsWith(`${union.schemaPath}/`));
  if (branches.length === 0 || branches.some((e) => e.keyword !== 'format')) return undefined;
  const names = branches.map((e) => FORMAT_NAMES[String((e.params as { format?: unknown }).format)]);
  if (names.some((name) => name === undefined)) return undefined;
  return `must be ${[...new Set(names)].join(' or ')}`;
}
