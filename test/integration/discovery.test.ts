import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { isApiOperation } from '../../api/discovery/openapi-document';
import { startTestServer, type TestServer } from '../support/app';

describe('Discovery: /openapi/v1.json, /swagger, /reference, /docs/', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('serves an OpenAPI 3.1.1 document, version 1.0.0, that a 3.1 validator accepts', async () => {
    const res = await fetch(`${server.baseUrl}/openapi/v1.json`);
    expect(res.status).to.equal(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string } };
    expect(doc.openapi).to.equal('3.1.1');
    expect(doc.info.version).to.equal('1.0.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('documents every API operation the app serves, and nothing it does not serve; not the discovery or health pages', async () => {
    const doc = (await (await fetch(`${server.baseUrl}/openapi/v1.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      servers: { url: string }[];
    };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    const served = server.built.routes.filter(isApiOperation).map((r) => `${r.method} ${r.path}`);
    expect(documented.sort()).to.deep.equal(served.sort());
    expect(documented).to.include('get /v1/debts');
    expect(documented).to.not.include('get /healthz');
    expect(documented).to.not.include('get /openapi/v1.json');
    expect(doc.servers).to.have.length(1);
  });

  it('serves Swagger UI and the reference from this host, with no third-party script', async () => {
    for (const page of ['/swagger', '/reference']) {
      const res = await fetch(`${server.baseUrl}${page}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const html = await res.text();
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.length).to.be.greaterThan(0);
      sources.forEach((s) => expect(s, `${page} loads ${s}`).to.match(/^\//));
      for (const source of sources) {
        const asset = await fetch(`${server.baseUrl}${source}`);
        expect(asset.status, source).to.equal(200);
        await asset.arrayBuffer();
      }
    }
  });

  it('renders the Markdown guides of docs/ at /docs/', async () => {
    const index = await fetch(`${server.baseUrl}/docs/`);
    expect(index.status).to.equal(200);
    const html = await index.text();
    expect(html).to.contain('href="/docs/getting-started"').and.to.contain('href="/docs/webhooks"');
    const guide = await fetch(`${server.baseUrl}/docs/getting-started`);
    expect(guide.status).to.equal(200);
    expect(await guide.text()).to.match(/<h1[^>]*>/);
    const missing = await fetch(`${server.baseUrl}/docs/not-a-guide`);
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('content-type')).to.equal('application/problem+json');
  });
});
