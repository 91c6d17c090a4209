import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/app';
import { createTestTenant } from '../support/tenants';

describe('HTTP basics: request ids, problem documents, logs', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('gives every response, errors included, a unique X-Request-Id', async () => {
    const responses = await Promise.all([
      fetch(`${server.baseUrl}/openapi/v1.json`),
      fetch(`${server.baseUrl}/no-such-route`),
      fetch(`${server.baseUrl}/openapi/v1.json`, { method: 'DELETE' }),
      fetch(`${server.baseUrl}/docs/no-such-guide`),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    ids.forEach((id) => expect(id).to.match(/^req_[0-9a-f]{32}$/));
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('answers an unknown path with a 404 not_found problem document (to a caller with a key)', async () => {
    const tenant = await createTestTenant();
    const res = await fetch(`${server.baseUrl}/v1/nothing-here`, { headers: tenant.headers });
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.equal('application/problem+json');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).to.deep.equal({
      type: `${server.config.errorBaseUrl}/not_found`,
      title: 'not_found',
      status: 404,
      detail: 'No route matches GET /v1/nothing-here.',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('matches paths case-sensitively: /V1/… is not /v1/… (404, never a route run without its key checks)', async () => {
    const tenant = await createTestTenant();
    for (const path of ['/V1/organization', '/v1/Organization', '/v1/debts/', '/OpenAPI/v1.json']) {
      const res = await fetch(`${server.baseUrl}${path}`, { headers: tenant.headers });
      expect(res.status, path).to.equal(404);
      expect(res.headers.get('content-type'), path).to.equal('application/problem+json');
    }
    // The same key on the real paths: the 404s above were about the paths alone.
    expect((await fetch(`${server.baseUrl}/v1/organization`, { headers: tenant.headers })).status).to.equal(200);
    expect((await fetch(`${server.baseUrl}/openapi/v1.json`)).status).to.equal(200);
  });

  it('answers a wrong method with 405 method_not_allowed and an Allow header', async () => {
    const res = await fetch(`${server.baseUrl}/healthz`, { method: 'POST' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('GET, HEAD');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).to.include({ title: 'method_not_allowed', status: 405 });
  });

  it('points each problem type at a page documenting its code', async () => {
    const problem = (await (await fetch(`${server.baseUrl}/nope`)).json()) as { type: string };
    const page = await fetch(problem.type.replace(server.config.publicBaseUrl, server.baseUrl));
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.contain('<code>not_found</code>').and.to.contain('404');
  });

  it('logs one JSON line per request with request id, method, path, status and latency', async () => {
    const res = await fetch(`${server.baseUrl}/openapi/v1.json?x=1`);
    const id = res.headers.get('x-request-id');
    await res.arrayBuffer();
    const line = server.logLines().find((l) => l.requestId === id);
    expect(line).to.include({ method: 'GET', path: '/openapi/v1.json', status: 200, msg: 'request' });
    expect(line?.latencyMs).to.be.a('number');
  });

  it('never logs the Authorization header, request bodies or query strings', async () => {
    const secret = 'ak_live_SuperSecretValueThatMustNeverBeLogged0001';
    const bodySecret = 'debtor-email-ava.harris@example.com';
    await (
      await fetch(`${server.baseUrl}/v1/debts?email=${encodeURIComponent(bodySecret)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ debtorEmail: bodySecret }),
      })
    ).arrayBuffer();
    await (await fetch(`${server.baseUrl}/healthz`, { headers: { authorization: `Bearer ${secret}` } })).arrayBuffer();
    const log = server.rawLog();
    expect(log).to.contain('/v1/debts');
    expect(log).not.to.contain(secret);
    expect(log).not.to.contain('SuperSecret');
    expect(log).not.to.contain(bodySecret);
    expect(log.toLowerCase()).not.to.contain('authorization');
  });
});
