import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/app';
import { createTestTenant } from '../support/tenants';

describe('GET /v1/organization', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('returns the organisation of the calling key, with no scope needed', async () => {
    const tenant = await createTestTenant({ scopes: [], name: 'Acme Lending' });
    const res = await fetch(`${server.baseUrl}/v1/organization`, { headers: tenant.headers });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({
      id: tenant.organization.id,
      name: 'Acme Lending',
      mode: 'production',
      createdAt: tenant.organization.createdAt,
    });
  });
});
