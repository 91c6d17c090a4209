/**
 * Unauthenticated traffic is cheap and harmless: random keys neither evict valid keys from the key cache nor reach
 * the database unthrottled; keys are checked before bodies are read; every /v1 answer carries the rate-limit
 * headers; /metrics is internal; /healthz probes its dependencies at most once a second however busy it is.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { findApiKeyBySecret, revokeApiKey } from '../../core/access/api-keys';
import type { Db } from '../../core/platform/db';
import { createLogger } from '../../core/platform/logger';
import {
  createKeyAuthenticator,
  FAILED_AUTH_LIMIT,
  FAILED_AUTH_WINDOW_MS,
  type KeyAuthenticator,
} from '../../api/http/key-auth';
import { startTestServer, type TestServer } from '../support/app';
import { testDb } from '../support/resources';
import { createTestTenant, jsonHeaders, type TestTenant } from '../support/tenants';

const randomKey = () => `ak_live_${randomBytes(30).toString('hex').slice(0, 40)}`;

describe('unauthenticated traffic', () => {
  describe('the key authenticator', () => {
    let tenant: TestTenant;
    let clock: number;
    let lookups: string[];
    let authenticator: KeyAuthenticator;

    beforeEach(async () => {
      tenant = await createTestTenant();
      clock = Date.now();
      lookups = [];
      authenticator = createKeyAuthenticator({
        db: testDb(),
        mode: 'production',
        logger: createLogger({ level: 'silent', name: 'test' }),
        now: () => clock,
        // Only the tenant's key reaches the database; random keys are counted and unknown.
        findKey: async (db: Db, secret: string) => {
          lookups.push(secret);
          return secret === tenant.key ? findApiKeyBySecret(db, secret) : undefined;
        },
      });
    });

    const bearer = (key: string) => `Bearer ${key}`;

    it('keeps a valid key cached through a flood of 20,000 random keys from as many addresses', async () => {
      await authenticator.authenticate(bearer(tenant.key), '10.0.0.1');
      for (let i = 0; i < 20_000; i++) {
        await authenticator.authenticate(bearer(randomKey()), `addr-${i}`).catch(() => undefined);
      }
      await authenticator.authenticate(bearer(tenant.key), '10.0.0.1');
      expect(lookups.filter((k) => k === tenant.key)).to.have.length(1);
    });

    it('remembers an unknown key: asking again a minute later from other addresses costs no lookup', async () => {
      const unknown = randomKey();
      for (let i = 0; i < 5; i++) {
        await authenticator.authenticate(bearer(unknown), `addr-${i}`).catch(() => undefined);
        clock += 10_000;
      }
      expect(lookups).to.deep.equal([unknown]);
    });

    it(`refuses an address after ${FAILED_AUTH_LIMIT} failed authentications with 429 and no lookup, until its window ends`, async () => {
      for (let i = 0; i < FAILED_AUTH_LIMIT; i++) {
        await authenticator.authenticate(bearer(randomKey()), '203.0.113.9').catch(() => undefined);
      }
      const before = lookups.length;
      const refused = await authenticator.authenticate(bearer(tenant.key), '203.0.113.9').catch((e: unknown) => e);
      expect(refused).to.include({ code: 'rate_limited' });
      expect(lookups.length).to.equal(before);
      // Another address is not affected, and the refused one is served again once its window is over.
      expect((await authenticator.authenticate(bearer(tenant.key), '203.0.113.10')).keyId).to.equal(tenant.keyId);
      clock += FAILED_AUTH_WINDOW_MS;
      expect((await authenticator.authenticate(bearer(tenant.key), '203.0.113.9')).keyId).to.equal(tenant.keyId);
    });

    it('never refuses a key it already knows because its address is over the failure limit', async () => {
      await authenticator.authenticate(bearer(tenant.key), '198.51.100.20');
      for (let i = 0; i < FAILED_AUTH_LIMIT + 5; i++) {
        await authenticator.authenticate(bearer(randomKey()), '198.51.100.20').catch(() => undefined);
      }
      const wrong = await authenticator.authenticate(bearer(randomKey()), '198.51.100.20').catch((e: unknown) => e);
      expect(wrong).to.include({ code: 'rate_limited' });
      // Fresh in the cache, and again once its cache entry has aged (looked up again, still not refused).
      expect((await authenticator.authenticate(bearer(tenant.key), '198.51.100.20')).keyId).to.equal(tenant.keyId);
      clock += 5_000;
      expect((await authenticator.authenticate(bearer(tenant.key), '198.51.100.20')).keyId).to.equal(tenant.keyId);
    });

    it('answers a freshly looked-up key without a lookup, and nothing else: unknown, malformed, aged or revoked keys go to authenticate', async () => {
      expect(authenticator.knownContext(bearer(tenant.key)), 'never looked up yet').to.equal(undefined);
      await authenticator.authenticate(bearer(tenant.key), '192.0.2.1');
      const looked = lookups.length;
      expect(authenticator.knownContext(bearer(tenant.key))?.keyId).to.equal(tenant.keyId);
      expect(lookups.length, 'no lookup for a fresh key').to.equal(looked);
      expect(authenticator.knownContext(bearer(randomKey()))).to.equal(undefined);
      expect(authenticator.knownContext('Bearer not-a-key')).to.equal(undefined);
      expect(authenticator.knownContext(undefined)).to.equal(undefined);
      clock += 1_000; // the cache entry has aged: authenticate looks it up again
      expect(authenticator.knownContext(bearer(tenant.key))).to.equal(undefined);
      await revokeApiKey(testDb(), tenant.keyId);
      const refused = await authenticator.authenticate(bearer(tenant.key), '192.0.2.1').catch((e: unknown) => e);
      expect(refused).to.include({ code: 'unauthenticated' });
      expect(authenticator.knownContext(bearer(tenant.key)), 'revoked, even freshly looked up').to.equal(undefined);
    });
  });

  describe('over HTTP', () => {
    let server: TestServer;
    let temporalProbes = 0;
    before(async () => {
      server = await startTestServer({
        deps: {
          checkTemporal: async () => {
            temporalProbes += 1;
          },
        },
      });
    });
    after(async () => {
      await server.close();
    });

    it('refuses a request without a key before reading its body (401, not a JSON or size error)', async () => {
      const malformed = await fetch(`${server.baseUrl}/v1/debts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(malformed.status).to.equal(401);
      const oversized = await fetch(`${server.baseUrl}/v1/debts`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(2 * 1024 * 1024),
      });
      expect(oversized.status).to.equal(401);
    });

    it('sends the rate-limit headers on a 404 of an unknown /v1 path and a 405, for an authenticated caller', async () => {
      const tenant = await createTestTenant();
      const unknown = await fetch(`${server.baseUrl}/v1/no-such-thing`, { headers: tenant.headers });
      const wrongMethod = await fetch(`${server.baseUrl}/v1/organization`, {
        method: 'DELETE',
        headers: jsonHeaders(tenant),
      });
      expect([unknown.status, wrongMethod.status]).to.deep.equal([404, 405]);
      for (const res of [unknown, wrongMethod]) {
        for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
          expect(res.headers.get(name), name).to.match(/^\d+$/);
        }
      }
    });

    it('serves /metrics only on the internal metrics port, and leaves it out of the OpenAPI document', async () => {
      expect((await fetch(`${server.baseUrl}/metrics`)).status).to.equal(404);
      const internal = await fetch(server.metricsUrl);
      expect(internal.status).to.equal(200);
      expect(await internal.text()).to.match(/^# HELP client_api_/m);
      const document = (await (await fetch(`${server.baseUrl}/openapi/v1.json`)).json()) as { paths: object };
      expect(Object.keys(document.paths)).not.to.include('/metrics');
    });

    it('answers 50 concurrent /healthz with {ok, mode} while probing each dependency once', async () => {
      const before = temporalProbes;
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${server.baseUrl}/healthz`)));
      for (const res of answers) expect(await res.json()).to.deep.equal({ ok: true, mode: 'production' });
      expect(temporalProbes - before).to.equal(1);
    });
  });

  describe('the client address behind proxies', () => {
    const FAILURES = 3;
    const servers: TestServer[] = [];
    const start = async (env: NodeJS.ProcessEnv = {}) => {
      const started = await startTestServer({ env, deps: { failedAuthLimit: FAILURES } });
      servers.push(started);
      return started;
    };
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });
    const get = (server: TestServer, key: string, forwardedFor?: string) =>
      fetch(`${server.baseUrl}/v1/organization`, {
        headers: { authorization: `Bearer ${key}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      }).then((res) => res.status);

    it('an address over the failure limit still gets 200 with a good key it has used before', async () => {
      const server = await start();
      const tenant = await createTestTenant();
      expect(await get(server, tenant.key)).to.equal(200);
      for (let i = 0; i < FAILURES; i++) expect(await get(server, randomKey())).to.equal(401);
      expect(await get(server, randomKey())).to.equal(429);
      expect(await get(server, tenant.key)).to.equal(200);
      // A good key this process has not seen yet still waits for the window, like any other guess.
      const newcomer = await createTestTenant();
      expect(await get(server, newcomer.key)).to.equal(429);
    });

    it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
      const server = await start(); // TRUSTED_PROXIES unset: the peer (127.0.0.1) is the client
      for (let i = 0; i < FAILURES; i++) expect(await get(server, randomKey(), `198.51.100.${i + 1}`)).to.equal(401);
      expect(await get(server, randomKey(), '198.51.100.99')).to.equal(429);
    });

    it('reads the client from X-Forwarded-For when the peer is a trusted proxy, past every trusted hop', async () => {
      const server = await start({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
      for (let i = 0; i < FAILURES; i++) expect(await get(server, randomKey(), '198.51.100.7')).to.equal(401);
      expect(await get(server, randomKey(), '198.51.100.7')).to.equal(429);
      // The same client through a second, trusted hop; a spoofed entry left of the client is not believed.
      expect(await get(server, randomKey(), '203.0.113.1, 198.51.100.7, 10.1.2.3')).to.equal(429);
      // Another client behind the same proxy is not affected, nor is a request without the header (the proxy itself).
      expect(await get(server, randomKey(), '198.51.100.8')).to.equal(401);
      const tenant = await createTestTenant();
      expect(await get(server, tenant.key)).to.equal(200);
    });
  });
});
