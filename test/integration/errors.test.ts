import { expect } from 'chai';
import { ERROR_CATALOGUE } from '../../core/platform/errors';
import { startTestServer, type TestServer } from '../support/app';
import { fixtureRoutes } from '../support/fixture-routes';
import { createTestTenant, jsonHeaders, type TestTenant } from '../support/tenants';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  requestId: string;
  errors?: { path: string; message: string }[];
}

describe('Problem documents for every error path', () => {
  let server: TestServer;
  let tenant: TestTenant;
  before(async () => {
    server = await startTestServer({ deps: { extraRoutes: fixtureRoutes() } });
    tenant = await createTestTenant();
  });
  after(async () => {
    await server.close();
  });

  async function expectProblem(res: Response, status: number, title: string): Promise<Problem> {
    expect(res.status).to.equal(status);
    expect(res.headers.get('content-type')).to.equal('application/problem+json');
    const problem = (await res.json()) as Problem;
    expect(problem).to.include({ status, title, type: `${server.config.errorBaseUrl}/${title}` });
    expect(problem.detail).to.be.a('string').and.not.equal('');
    expect(problem.requestId).to.equal(res.headers.get('x-request-id'));
    return problem;
  }

  const notes = `/v1/test-fixtures/notes`;
  const send = (body: string, headers: Record<string, string> = jsonHeaders(tenant)) =>
    fetch(`${server.baseUrl}${notes}`, { method: 'POST', headers, body });

  it('413 payload_too_large for bodies over 1 MiB', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(1024 * 1024) });
    await expectProblem(await send(big), 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a non-JSON body', async () => {
    const headers = { ...tenant.headers, 'content-type': 'text/plain' };
    await expectProblem(await send('note=hi', headers), 415, 'unsupported_media_type');
  });

  it('400 invalid_request for malformed JSON', async () => {
    const problem = await expectProblem(await send('{"note": '), 400, 'invalid_request');
    expect(problem.detail).to.match(/^Malformed request/);
  });

  it('400 invalid_request naming each offending field for schema violations', async () => {
    const problem = await expectProblem(
      await send(JSON.stringify({ colour: 'red', outcome: 42 })),
      400,
      'invalid_request',
    );
    expect(problem.errors).to.deep.include.members([
      { path: 'body.colour', message: 'is not a recognised field' },
      { path: 'body.note', message: 'is required' },
      { path: 'body.outcome', message: 'must be one of "ok", "business_error", "crash"' },
    ]);
  });

  it('400 invalid_request for a missing body where one is required, and for unknown query parameters', async () => {
    await expectProblem(
      await fetch(`${server.baseUrl}${notes}`, { method: 'POST', headers: tenant.headers }),
      400,
      'invalid_request',
    );
    const query = await fetch(`${server.baseUrl}/v1/organization?expand=everything`, { headers: tenant.headers });
    const problem = await expectProblem(query, 400, 'invalid_request');
    expect(problem.detail).to.contain('expand');
  });

  it('405 method_not_allowed with Allow, and 404 not_found for unknown routes', async () => {
    const res = await fetch(`${server.baseUrl}/v1/organization`, { method: 'DELETE', headers: tenant.headers });
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.equal('GET, HEAD');
    await expectProblem(await fetch(`${server.baseUrl}/v1/unknown`, { headers: tenant.headers }), 404, 'not_found');
  });

  it('500 internal_error without internals; the details go to the log with the request id', async () => {
    const problem = await expectProblem(
      await send(JSON.stringify({ note: 'x', outcome: 'crash' })),
      500,
      'internal_error',
    );
    expect(JSON.stringify(problem)).not.to.contain('secret internals').and.not.to.contain('at ');
    const logged = server.logLines().find((l) => l.msg === 'unhandled error' && l.requestId === problem.requestId);
    expect(logged, 'error log line with the request id').to.not.equal(undefined);
    expect(JSON.stringify(logged)).to.contain('fixture crash with secret internals');
  });

  it('the errors guide lists every code of the catalogue with its status', async () => {
    const html = await (await fetch(`${server.baseUrl}/docs/errors`)).text();
    for (const [code, def] of Object.entries(ERROR_CATALOGUE)) {
      expect(html, code).to.contain(`<code>${code}</code>`);
      expect(html).to.match(new RegExp(`${code}</code></a></td>\\s*<td>${def.status}</td>`));
    }
  });
});

describe('Deprecated routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ deps: { extraRoutes: fixtureRoutes() } });
  });
  after(async () => {
    await server.close();
  });

  it('answer with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the migration guide', async () => {
    const tenant = await createTestTenant();
    const res = await fetch(`${server.baseUrl}/v1/test-fixtures/old`, { headers: tenant.headers });
    expect(res.status).to.equal(200);
    expect(res.headers.get('deprecation')).to.equal(`@${Date.UTC(2026, 5, 1) / 1000}`);
    expect(res.headers.get('sunset')).to.equal('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(res.headers.get('link')).to.equal(
      '<https://example.test/docs/migrate-old>; rel="deprecation"; type="text/html"',
    );
  });

  it('are marked deprecated in the OpenAPI document; other routes are not', () => {
    const paths = server.built.openApiDocument.paths as Record<string, Record<string, { deprecated?: boolean }>>;
    expect(paths['/v1/test-fixtures/old']!.get!.deprecated).to.equal(true);
    expect(paths['/v1/organization']!.get!.deprecated).to.equal(undefined);
  });
});
