/**
 * The simulation routes exist on the sandbox host only: production answers 404 to them and its OpenAPI document does
 * not list them; the sandbox's document describes each fully (scope, summary, the events it causes, examples that fit
 * their schemas, the errors it answers) and passes a 3.1 validator.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { documentSchemas } from '../support/openapi-schemas';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, expectProblem, raiseDebt } from '../support/debt-api';
import { createTestTenant } from '../support/tenants';

const SIMULATIONS = ['accept', 'dispute', 'dispute/resolve', 'plan', 'payments', 'advance'].map(
  (action) => `/v1/sandbox/debts/{id}/${action}`,
);

type Operation = {
  summary: string;
  description: string;
  'x-required-scope': string;
  security: unknown[];
  parameters?: { name: string }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> & { example?: unknown } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown>; example?: unknown }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; tags: { name: string }[] };

async function documentOf(server: TestServer): Promise<Document> {
  return (await (await fetch(`${server.baseUrl}/openapi/v1.json`)).json()) as Document;
}

describe('Sandbox simulation routes: on the sandbox host only, and documented there', () => {
  let production: TestServer;
  let sandbox: TestServer;
  before(async () => {
    [production, sandbox] = await Promise.all([startTestServer(), startTestServer({ mode: 'sandbox' })]);
  });
  after(async () => {
    await Promise.all([production.close(), sandbox.close()]);
  });

  it('production answers 404 not_found to every simulation path, even for the caller’s own debt', async () => {
    const tenant = await createTestTenant();
    const api = callerFor(production.baseUrl, tenant);
    const debt = await raiseDebt(api);
    for (const path of SIMULATIONS) {
      expectProblem(await api('POST', path.replace('{id}', debt.id), {}), 404, 'not_found');
    }
    expect((await api('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('PendingAssignment');
  });

  it('production’s OpenAPI document lists none of them, nor the Sandbox tag', async () => {
    const doc = await documentOf(production);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/sandbox/'))).to.deep.equal([]);
    expect(doc.tags.map((t) => t.name)).to.not.include('Sandbox');
  });

  it('the sandbox’s document describes each: scope, events, examples that fit, 404/409/400 and Idempotency-Key', async () => {
    const doc = await documentOf(sandbox);
    const validation = await new Validator().validate(doc);
    expect(validation.errors ?? []).to.deep.equal([]);
    const ajv = documentSchemas(doc);
    for (const path of SIMULATIONS) {
      const op = doc.paths[path]?.post;
      expect(op, path).to.not.equal(undefined);
      expect(op!['x-required-scope'], path).to.equal('debts:write');
      expect(op!.security, path).to.deep.equal([{ bearerApiKey: [] }]);
      expect(op!.summary, path).to.match(/^Simulate: /);
      expect(op!.description, path).to.contain('Sandbox only');
      expect(
        op!.parameters!.map((p) => p.name),
        path,
      ).to.include('Idempotency-Key');
      expect(Object.keys(op!.responses), path).to.include.members(['200', '400', '404', '409', '429']);
      const ok = op!.responses['200']!.content!['application/json']!;
      expect(ajv.validate(ok.schema, ok.example), `${path}: ${ajv.errorsText()}`).to.equal(true);
      const body = op!.requestBody?.content['application/json']?.schema;
      if (body) expect(ajv.validate(body, body.example), `${path} request: ${ajv.errorsText()}`).to.equal(true);
    }
    // The events each move causes are named where a client developer reads.
    const events = ['debt.accepted', 'debt.disputed', 'plan.activated', 'payment.received', 'plan.defaulted'];
    const descriptions = SIMULATIONS.map((p) => doc.paths[p]!.post!.description).join(' ');
    for (const event of events) expect(descriptions).to.contain(event);
  });

  it('serves the sandbox cookbook the Sandbox tag links to, on both hosts', async () => {
    for (const server of [production, sandbox]) {
      const page = await fetch(`${server.baseUrl}/docs/sandbox`);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain('/v1/sandbox/debts/{id}/advance');
    }
  });
});
