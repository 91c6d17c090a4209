/**
 * Request validation with ajv against the routes' JSON Schemas (2020-12, as in OpenAPI 3.1).
 * Query and path parameters arrive as strings and are coerced ("50" → 50), but only from their plain form: a number
 * parameter must be written as decimal digits, since ajv would also take "1e2", "0x10", " 5 " or "5.0".
 * Bodies are never coerced. A NUL character anywhere in a body or query (PostgreSQL text cannot hold one), or any
 * other control character but tab, line feed and carriage return, is refused before the schema runs, naming the field.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { controlCharacterProblem } from '../../core/platform/control-characters';
import { errors, type FieldError } from '../../core/platform/errors';
import { CANONICAL_UUID } from '../../core/platform/ids';
import { plainFieldErrors } from './plain-errors';
import { HANDLER_CHECKS, type JsonSchema } from './route-definition';

function newAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, coerceTypes, useDefaults: true, strict: true });
  addFormats(ajv);
  // ajv-formats also takes `urn:uuid:…`, which PostgreSQL refuses: a filter id must be the canonical form.
  ajv.addFormat('uuid', CANONICAL_UUID);
  // OpenAPI's own annotation keywords, allowed in our schemas for the document's sake.
  ajv.addKeyword({ keyword: 'example' });
  ajv.addVocabulary(['x-ts-type']);
  // Documented constraints that handlers check themselves, to answer with the spec's codes (route-definition.ts).
  ajv.addKeyword({ keyword: HANDLER_CHECKS });
  return ajv;
}

const bodyAjv = newAjv(false);
const parameterAjv = newAjv(true);

export type RequestPart = 'body' | 'query' | 'params';

export interface Validator {
  (value: unknown): void;
}

export function compileValidator(part: RequestPart, schema: JsonSchema): Validator {
  const validate: ValidateFunction = (part === 'body' ? bodyAjv : parameterAjv).compile(schema);
  const numberParameters = part === 'body' ? [] : numberProperties(schema);
  return (value: unknown) => {
    // Path ids are opaque: a malformed one (NUL included) is simply not found, so params skip this check.
    if (part !== 'params') refuseControlCharacters(part, value);
    refuseNonDecimal(part, value, numberParameters);
    if (validate(value)) return;
    const fieldErrors = plainFieldErrors(validate.errors ?? [], (e) => fieldPath(part, e));
    const summary = fieldErrors.map((f) => `${f.path} ${f.message}`).join('; ');
    throw errors.invalidRequest(
      `The request ${part === 'params' ? 'path' : part} is invalid: ${summary}.`,
      fieldErrors,
    );
  };
}

const PLAIN_INTEGER = /^-?[0-9]+$/;

/** The top-level properties a parameter schema declares as `integer` or `number`. */
function numberProperties(schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(properties).filter((name) => ['integer', 'number'].includes(String(properties[name]!.type)));
}

function refuseNonDecimal(part: RequestPart, value: unknown, names: string[]): void {
  const raw = (value ?? {}) as Record<string, unknown>;
  const bad = names.filter(
    (name) => raw[name] !== undefined && !(typeof raw[name] === 'string' && PLAIN_INTEGER.test(raw[name])),
  );
  if (bad.length === 0) return;
  const where = part === 'params' ? 'path' : part;
  throw errors.invalidRequest(
    `The request ${where} is invalid: ${bad.map((name) => `${where}.${name}`).join(', ')} must be a plain decimal integer.`,
    bad.map((name) => ({ path: `${where}.${name}`, message: 'must be a plain decimal integer' })),
  );
}

/**
 * Throws invalid_request naming every field whose value (or a field name in it) holds a NUL or another control
 * character (core/platform/control-characters.ts).
 */
function refuseControlCharacters(part: RequestPart, value: unknown): void {
  const found: FieldError[] = [];
  collectControlCharacters(value, [part], found);
  if (found.length === 0) return;
  throw errors.invalidRequest(
    `The request ${part} is invalid: ${found.map((f) => `${f.path} ${f.message}`).join('; ')}.`,
    found,
  );
}

function collectControlCharacters(value: unknown, path: string[], found: FieldError[]): void {
  if (typeof value === 'string') {
    const problem = controlCharacterProblem(value);
    if (problem) found.push({ path: path.join('.'), message: problem });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [name, item] of Object.entries(value)) {
    const problem = controlCharacterProblem(name);
    if (problem) {
      found.push({ path: path.join('.'), message: `${problem} in a field name` });
    } else {
      collectControlCharacters(item, [...path, name], found);
    }
  }
}

/** Where the finding is: the field it names (a missing or unrecognised one), else the value's own path. */
function fieldPath(part: RequestPart, e: ErrorObject): string {
  const base = [part === 'params' ? 'path' : part, ...e.instancePath.split('/').filter(Boolean)].join('.');
  if (e.keyword === 'required') return `${base}.${String(e.params.missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${base}.${String(e.params.additionalProperty)}`;
  return base;
}
