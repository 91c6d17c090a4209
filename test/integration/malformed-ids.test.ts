import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, type Caller } from '../support/debt-api';
import { exampleBody, idResourceOf, pathWithId, routeName, tenantRoutes } from '../support/route-table';
import { createTestTenant } from '../support/tenants';

// Each host's own route table: the sandbox's adds its simulation routes (`/v1/sandbox/debts/{id}/…`).
for (const mode of ['production', 'sandbox'] as const) {
  describe(`Malformed path ids (${mode}): a path id that is not a canonical UUID is simply not found, on every resource`, () => {
    let server: TestServer;
    let api: Caller;
    const real = randomUUID();
    const malformed = [
      `urn:uuid:${real}`,
      `{${real}}`,
      real.replace(/-/g, ''),
      'abc',
      `${real}\u0000`, // sent percent-encoded (%00): it must never reach the database
      `${real.slice(0, 8)}\u0000${real.slice(8)}`,
      `${real} `,
    ];

    before(async () => {
      server = await startTestServer({ mode });
      api = callerFor(server.baseUrl, await createTestTenant({ mode }));
    });
    after(async () => {
      await server.close();
    });

    it('answers 404 not_found as problem+json, never 400 or 500, to every {id} route', async () => {
      const idRoutes = tenantRoutes(server.built.routes).filter((r) => idResourceOf(r));
      expect(idRoutes).to.not.be.empty;
      for (const route of idRoutes) {
        for (const id of malformed) {
          const path = pathWithId(route, id);
          const answer = await api(route.method.toUpperCase(), path, exampleBody(route));
          expect([answer.status, answer.body.title], `${routeName(route)} as ${path}: ${answer.text}`).to.deep.equal([
            404,
            'not_found',
          ]);
          expect(answer.headers.get('content-type')).to.equal('application/problem+json');
        }
      }
    });
  });
}
