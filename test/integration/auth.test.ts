import { expect } from 'chai';
import { generateKeySecret, revokeApiKey } from '../../core/access/api-keys';
import { createDb } from '../../core/platform/db';
import { isWriteScope, SCOPES, type Scope } from '../../core/access/scopes';
import { KEY_CACHE_TTL_MS } from '../../api/http/key-auth';
import type { RouteDefinition } from '../../api/http/route-definition';
import { startTestServer, type TestServer } from '../support/app';
import { routeRequest, routeUrl } from '../support/requests';
import { testDb } from '../support/resources';
import { createTestTenant, mintKey, type TestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const scopeOf = (route: RouteDefinition): Scope | null => (route.auth.kind === 'key' ? route.auth.scope : null);

describe('Authentication and authorisation on every /v1 route', function () {
  this.timeout(60_000);
  let production: TestServer;
  let sandbox: TestServer;
  let keyRoutes: RouteDefinition[];
  let tenant: TestTenant;

  before(async () => {
    production = await startTestServer({ mode: 'production' });
    sandbox = await startTestServer({ mode: 'sandbox' });
    keyRoutes = production.built.routes.filter((r) => r.auth.kind === 'key');
    tenant = await createTestTenant();
  });
  after(async () => {
    await production.close();
    await sandbox.close();
  });

  async function statusAndTitle(server: TestServer, route: RouteDefinition, headers: Record<string, string>) {
    const res = await fetch(routeUrl(server.baseUrl, route), routeRequest(route, headers));
    const body = (await res.json()) as { title?: string };
    return {
      status: res.status,
      title: body.title,
      type: res.headers.get('content-type'),
      challenge: res.headers.get('www-authenticate'),
    };
  }

  it('every /v1 route is declared with an API key (none is left open)', () => {
    const open = production.built.routes.filter((r) => r.path.startsWith('/v1') && r.auth.kind !== 'key');
    expect(open.map((r) => r.path)).to.deep.equal([]);
    expect(keyRoutes.length).to.be.greaterThan(0);
  });

  it('answers 401 unauthenticated with WWW-Authenticate: Bearer for a missing, malformed, unknown, revoked or wrong-mode key', async () => {
    const revoked = await mintKey(tenant.organization.id);
    await revokeApiKey(testDb(), revoked.keyId);
    const sandboxTenant = await createTestTenant({ mode: 'sandbox' });
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      'not bearer': { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      'no key': { authorization: 'Bearer' },
      'malformed key': { authorization: 'Bearer ak_live_short' },
      'other prefix': { authorization: `Bearer sk_live_${'a'.repeat(40)}` },
      unknown: { authorization: `Bearer ${generateKeySecret('production')}` },
      revoked: revoked.headers,
      'test key on production': sandboxTenant.headers,
    };
    for (const route of keyRoutes) {
      for (const [name, headers] of Object.entries(cases)) {
        const result = await statusAndTitle(production, route, headers);
        expect(result, `${route.method} ${route.path} with ${name} key`).to.deep.equal({
          status: 401,
          title: 'unauthenticated',
          type: 'application/problem+json',
          // RFC 6750 §3: the scheme alone when no credential came, invalid_token when one came and is no good.
          challenge: name === 'missing' ? 'Bearer' : 'Bearer error="invalid_token"',
        });
      }
      const liveOnSandbox = await statusAndTitle(sandbox, route, tenant.headers);
      expect(liveOnSandbox.status, `live key on sandbox ${route.path}`).to.equal(401);
    }
  });

  it('rejects malformed and wrong-mode keys before touching the database', async () => {
    const deadDb = createDb('postgres://client_api:client_api@127.0.0.1:1/nothing');
    const server = await startTestServer({ deps: { db: deadDb } });
    try {
      for (const authorization of [`Bearer ${generateKeySecret('sandbox')}`, 'Bearer nonsense', '']) {
        const res = await fetch(`${server.baseUrl}/v1/organization`, {
          headers: authorization ? { authorization } : {},
        });
        expect(res.status, authorization).to.equal(401);
      }
      // A well-formed key of the right mode does need the database, which is down (503): proof the others never asked.
      const res = await fetch(`${server.baseUrl}/v1/organization`, {
        headers: { authorization: `Bearer ${generateKeySecret('production')}` },
      });
      expect(res.status).to.equal(503); // service_unavailable: the database does not answer
    } finally {
      await server.close();
      await deadDb.destroy();
    }
  });

  it('answers 403 forbidden when the key lacks the route scope', async () => {
    const scoped = keyRoutes.filter((r) => scopeOf(r) !== null);
    expect(scoped.length).to.be.greaterThan(0);
    for (const route of scoped) {
      const others = SCOPES.filter((s) => s !== scopeOf(route));
      const key = await mintKey(tenant.organization.id, { scopes: others });
      const result = await statusAndTitle(production, route, key.headers);
      expect(result, `${route.method} ${route.path}`).to.deep.equal({
        status: 403,
        title: 'forbidden',
        type: 'application/problem+json',
        challenge: null,
      });
    }
  });

  it('answers 403 read_only_key on every write route for a read-only key, whatever it was granted', async () => {
    const readOnly = await mintKey(tenant.organization.id, { readOnly: true });
    for (const route of keyRoutes) {
      const scope = scopeOf(route);
      const result = await statusAndTitle(production, route, readOnly.headers);
      if (scope && isWriteScope(scope)) {
        expect(result.status, `${route.method} ${route.path}`).to.equal(403);
        expect(result.title).to.equal('read_only_key');
      } else {
        expect(result.status, `${route.method} ${route.path}`).not.to.equal(403);
        expect(result.status).not.to.equal(401);
      }
    }
  });

  it('a revocation takes effect on every API process within one second', async () => {
    const key = await mintKey(tenant.organization.id);
    const other = await startTestServer();
    try {
      for (const server of [production, other]) {
        expect((await fetch(`${server.baseUrl}/v1/organization`, { headers: key.headers })).status).to.equal(200);
      }
      // Each process may serve its cached key for KEY_CACHE_TTL_MS; the margin covers the polling requests.
      const deadline = Date.now() + KEY_CACHE_TTL_MS + 500;
      await revokeApiKey(testDb(), key.keyId);
      for (const server of [production, other]) {
        const refusal = await waitFor(
          async () => {
            const res = await fetch(`${server.baseUrl}/v1/organization`, { headers: key.headers });
            const body = (await res.json()) as { detail?: string };
            return res.status === 401 && body;
          },
          { timeoutMs: deadline - Date.now(), what: `${server.baseUrl} to refuse the revoked key` },
        );
        expect(refusal.detail).to.contain('revoked');
      }
    } finally {
      await other.close();
    }
  });
});
