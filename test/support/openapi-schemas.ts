/** Validating values against the schemas of a served OpenAPI document, whose `$ref`s name its components. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface DocumentSchemas {
  /** Whether the value fits the schema (taken from the document; its `#/components/…` references resolve). */
  validate(schema: object, value: unknown): boolean;
  errorsText(): string;
}

export function documentSchemas(doc: object): DocumentSchemas {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const based = (schema: object) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as object;
  return {
    validate: (schema, value) => ajv.validate(based(schema), value),
    errorsText: () => ajv.errorsText(),
  };
}
