import { expect } from 'chai';
import { documentSchemas } from '../support/openapi-schemas';
import { startTestServer, type TestServer } from '../support/app';

describe('OpenAPI: the debt, debtor, transaction and branding operations', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('documents each with its scope, a request example where it takes a body, and response examples that fit', async () => {
    const doc = (await (await fetch(`${server.baseUrl}/openapi/v1.json`)).json()) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    const ajv = documentSchemas(doc);
    const expected: Record<string, string> = {
      'get /v1/debts': 'debts:read',
      'get /v1/debts/{id}': 'debts:read',
      'post /v1/debts': 'debts:write',
      'patch /v1/debts/{id}': 'debts:write',
      'get /v1/debtors': 'debtors:read',
      'get /v1/debtors/{id}': 'debtors:read',
      'post /v1/debtors': 'debtors:write',
      'patch /v1/debtors/{id}': 'debtors:write',
      'get /v1/transactions': 'transactions:read',
      'get /v1/payments': 'payments:read',
      'get /v1/organization/branding': 'branding:read',
      'patch /v1/organization/branding': 'branding:write',
    };
    for (const [key, scope] of Object.entries(expected)) {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[path]?.[method];
      expect(op, key).to.not.equal(undefined);
      expect(op!['x-required-scope'], key).to.equal(scope);
      if (method !== 'get') {
        const schema = op!.requestBody!.content['application/json']!.schema;
        expect(schema.example, `${key} request example`).to.be.an('object');
        expect(ajv.validate(schema, schema.example), `${key} request example`).to.equal(true);
      }
      const success = Object.entries(op!.responses).filter(([status]) => status.startsWith('2'));
      expect(success, key).to.have.length(1);
      const media = (success[0]![1] as OpenApiResponse).content['application/json']!;
      expect(ajv.validate(media.schema, media.example), `${key}: ${ajv.errorsText()}`).to.equal(true);
    }
    const created = doc.paths['/v1/debts']!.post!;
    expect(Object.keys(created.responses)).to.include.members(['201', '400', '403', '409']);
    expect(JSON.stringify(created.responses['400'])).to.contain('missing_external_account_id');
  });
});

interface OpenApiResponse {
  content: Record<string, { schema: Record<string, unknown>; example: unknown }>;
}

interface OpenApiOperation {
  'x-required-scope': string;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> & { example?: unknown } }> };
  responses: Record<string, unknown>;
}
