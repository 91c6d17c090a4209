/**
 * Request validation with ajv against the routes' JSON Schemas (2020-12, as in OpenAPI 3.1).
 * Query and path parameters arrive as strings and are coerced ("50" → 50); bodies are never coerced.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { errors, type FieldError } from '../../core/platform/errors';
import { CANONICAL_UUID } from '../../core/platform/ids';
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
  return (value: unknown) => {
    if (validate(value)) return;
    const fieldErrors = (validate.errors ?? []).map((e) => toFieldError(part, e));
    const summary = fieldErrors.map((f) => `${f.path} ${f.message}`).join('; ');
    throw errors.invalidRequest(
      `The request ${part === 'params' ? 'path' : part} is invalid: ${summary}.`,
      fieldErrors,
    );
  };
}

function toFieldError(part: RequestPart, e: ErrorObject): FieldError {
  const base = [part === 'params' ? 'path' : part, ...e.instancePath.split('/').filter(Boolean)].join('.');
  switch (e.keyword) {
    case 'additionalProperties':
      return { path: `${base}.${String(e.params.additionalProperty)}`, message: 'is not a recognised field' };
    case 'required':
      return { path: `${base}.${String(e.params.missingProperty)}`, message: 'is required' };
    case 'enum':
      return { path: base, message: `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}` };
    default:
      return { path: base, message: e.message ?? 'is invalid' };
  }
}
