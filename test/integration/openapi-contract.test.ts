/**
 * The OpenAPI document says exactly what the API accepts (hardening item 4): each sample request is checked both
 * against the document's own schema and against the running API, and the two must agree; and every operation
 * documents every error status it can answer.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createDb } from '../../core/platform/db';
import { startTestServer } from '../support/app';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, inlineDebtBody } from '../support/debt-api';

type Schema = Record<string, unknown>;
type Operation = {
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  'x-required-scope'?: string;
};
type Document = { paths: Record<string, Record<string, Operation>> };

/** A validator of the document's schemas, as a client generator or a fuzzer would read them. */
function documentValidator(schema: Schema): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (value) => validate(value);
}

describe('OpenAPI contract: the document says exactly what the API accepts', () => {
  const suite = useApiSuite();
  let doc: Document;
  beforeEach(async () => {
    doc ??= (await (await fetch(`${suite.server.baseUrl}/openapi/v1.json`)).json()) as Document;
  });

  const operation = (method: string, path: string): Operation => doc.paths[path]![method]!;
  const bodySchema = (method: string, path: string): Schema =>
    operation(method, path).requestBody!.content['application/json']!.schema;

  it('publishes the Idempotency-Key pattern the API enforces, keys the API refuses included', async () => {
    const parameter = operation('post', '/v1/debtors').parameters!.find((p) => p.name === 'Idempotency-Key')!;
    expect(parameter.schema).to.include({ minLength: 1, maxLength: 200 });
    const documented = documentValidator(parameter.schema);
    const samples = ['k', 'order-42', 'a b', 'é-accent', 'tab\tinside', 'x'.repeat(200), 'x'.repeat(201)];
    for (const key of samples) {
      const answer = await suite.api('POST', '/v1/debtors', debtorBody(), { 'idempotency-key': key }).catch(() => null);
      // fetch itself refuses non-ASCII header values: nothing reaches the API, as the pattern says.
      const accepted = answer !== null && answer.status === 201;
      expect(documented(key), `document vs API for ${JSON.stringify(key)}`).to.equal(accepted);
    }
  });

  it('documents money as greater than zero, in both its number and its string form', async () => {
    const schema = bodySchema('post', '/v1/debts');
    const principal = documentValidator((schema.properties as Record<string, Schema>).originalPrincipal!);
    for (const value of [0, -1, 0.5, 1250.5, '0', '0.00', '-1', '1250.50', '0.5', '1e3', '0e5', 'abc']) {
      const answer = await suite.api('POST', '/v1/debts', inlineDebtBody({ originalPrincipal: value }));
      expect(principal(value), `document vs API for ${JSON.stringify(value)}`).to.equal(answer.status === 201);
    }
  });

  it('documents debtorId, a reference alone and the inline debtor as a oneOf on POST /v1/debts', async () => {
    const debtor = await suite.api<{ id: string; referenceId: string }>('POST', '/v1/debtors', debtorBody());
    const { debtorReferenceId, debtorFirstName, debtorLastName, debtorEmail, ...rest } = inlineDebtBody();
    const inline = { debtorReferenceId, debtorFirstName, debtorLastName, debtorEmail };
    const cases: [string, Schema][] = [
      ['by id', { ...rest, debtorId: debtor.body.id }],
      ['by reference alone', { ...rest, debtorReferenceId: debtor.body.referenceId }],
      ['inline', { ...rest, ...inline }],
      ['inline with a phone only', { ...rest, ...inline, debtorEmail: '', debtorPhone: '+61412345678' }],
      ['both', { ...rest, ...inline, debtorId: debtor.body.id }],
      ['id and one inline field', { ...rest, debtorId: debtor.body.id, debtorFirstName: 'Ava' }],
      ['neither', rest],
      ['inline without contact', { ...rest, ...inline, debtorEmail: '' }],
      ['inline with a blank name', { ...rest, ...inline, debtorLastName: '   ' }],
      ['blank externalAccountId', { ...rest, ...inline, externalAccountId: ' ' }],
      ['no principal', { ...inline, externalAccountId: 'ACCT-1' }],
      ['unknown currency', { ...rest, ...inline, currency: 'ZZZ' }],
      ['malformed debtorId', { ...rest, debtorId: 'not-a-uuid' }],
    ];
    const schema = bodySchema('post', '/v1/debts');
    expect(schema.oneOf).to.be.an('array').with.length(3);
    const documented = documentValidator(schema);
    for (const [index, [name, body]] of cases.entries()) {
      // Each case its own account: an account holds one open debt at a time.
      if (body.externalAccountId === rest.externalAccountId)
        body.externalAccountId = `${String(rest.externalAccountId)}-${index}`;
      const answer = await suite.api('POST', '/v1/debts', body);
      expect(documented(body), `${name}: document vs API (${answer.status})`).to.equal(answer.status === 201);
    }
  });

  it('documents the 400 of a second debtor with an existing referenceId, and answers it', async () => {
    const body = debtorBody();
    expect((await suite.api('POST', '/v1/debtors', body)).status).to.equal(201);
    expectProblem(
      await suite.api('POST', '/v1/debtors', { ...body, email: 'other@example.com' }),
      400,
      'invalid_request',
    );
    expect(operation('post', '/v1/debtors').responses['400']!.description).to.match(/referenceId/);
  });

  it('documents on every /v1 operation 400, 401, 429 and 503, on every mutation 413 and 415, each a problem', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const statuses = Object.keys(op.responses);
        const where = `${method.toUpperCase()} ${path}`;
        if (path.startsWith('/v1/')) expect(statuses, where).to.include.members(['400', '401', '429', '503']);
        if (method !== 'get') expect(statuses, where).to.include.members(['413', '415']);
        for (const status of statuses.filter((s) => Number(s) >= 400)) {
          const content = op.responses[status]!.content!;
          expect(content['application/problem+json']!.schema, `${where} ${status}`).to.deep.equal({
            $ref: '#/components/schemas/Problem',
          });
        }
      }
    }
  });

  it('answers a /v1 request 503 service_unavailable, not 500, when the database cannot be reached', async () => {
    const deadDb = createDb('postgres://client_api:client_api@127.0.0.1:1/nothing');
    const server = await startTestServer({ deps: { db: deadDb } });
    try {
      const res = await fetch(`${server.baseUrl}/v1/debts`, { headers: suite.tenant.headers });
      expect(res.status).to.equal(503);
      expect(((await res.json()) as { title: string }).title).to.equal('service_unavailable');
    } finally {
      await server.close();
      await deadDb.destroy();
    }
  });
});

function debtorBody(): Record<string, string> {
  const ref = randomUUID();
  return { referenceId: `DBR-${ref}`, firstName: 'Ava', lastName: 'Harris', email: `ava.${ref}@example.com` };
}
