/**
 * PUT /v1/webhooks resolves the receiver's host before its transaction, with a timeout and at most a few
 * resolutions in flight per organisation: a resolver that never answers holds no pool connection.
 */
import { expect } from 'chai';
import { createDb, type Db } from '../../core/platform/db';
import { startTestServer, type TestServer } from '../support/app';
import { testEnv } from '../support/env';
import { createTestTenant, jsonHeaders, type TestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const HANGING_URL = 'https://receiver.example.test/hooks';

/** A resolver that answers only when the test ends, counting the lookups in flight. */
function hangingResolver() {
  const pending: ((err: Error) => void)[] = [];
  let inFlight = 0;
  return {
    resolveHost: (): Promise<string[]> =>
      new Promise((_resolve, reject) => {
        inFlight += 1;
        pending.push((err) => {
          inFlight -= 1;
          reject(err);
        });
      }),
    inFlight: () => inFlight,
    releaseAll: () => pending.splice(0).forEach((reject) => reject(new Error('test over'))),
  };
}

function putUrl(server: TestServer, tenant: TestTenant) {
  return fetch(`${server.baseUrl}/v1/webhooks`, {
    method: 'PUT',
    headers: jsonHeaders(tenant),
    body: JSON.stringify({ url: HANGING_URL }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
}

describe('PUT /v1/webhooks with a DNS resolver that never answers', () => {
  const resolver = hangingResolver();
  let db: Db;
  let server: TestServer;

  before(async () => {
    db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 10 } }); // the app's own pool, so exhaustion shows
    server = await startTestServer({ deps: { db, resolveHost: resolver.resolveHost, resolveTimeoutMs: 3_000 } });
  });
  after(async () => {
    resolver.releaseAll();
    await server.close();
    await db.destroy();
  });

  it('serves another tenant’s 20 reads while 20 tenants’ PUTs wait on DNS, then answers them 400 invalid_url', async () => {
    const writers = await Promise.all(Array.from({ length: 20 }, () => createTestTenant()));
    const reader = await createTestTenant();
    const puts = writers.map((writer) => putUrl(server, writer));
    await waitFor(() => resolver.inFlight() >= 20, { timeoutMs: 10_000, what: '20 lookups in flight' });

    const reads = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${server.baseUrl}/v1/debts`, { headers: reader.headers })),
    );
    expect(reads.map((r) => r.status)).to.deep.equal(Array(20).fill(200));

    for (const answer of await Promise.all(puts)) {
      expect(answer.status).to.equal(400);
      expect(answer.body).to.include({ title: 'invalid_url' });
      expect(answer.body.detail).to.match(/could not be resolved in time/);
    }
  });

  it('refuses a third concurrent lookup of one organisation with 429 and Retry-After, and serves the first two', async () => {
    const tenant = await createTestTenant();
    const before = resolver.inFlight();
    const first = [putUrl(server, tenant), putUrl(server, tenant)];
    await waitFor(() => resolver.inFlight() >= before + 2, { timeoutMs: 10_000, what: 'two lookups in flight' });
    const third = await fetch(`${server.baseUrl}/v1/webhooks`, {
      method: 'PUT',
      headers: jsonHeaders(tenant),
      body: JSON.stringify({ url: HANGING_URL }),
    });
    expect(third.status).to.equal(429);
    expect(third.headers.get('retry-after')).to.equal('1');
    expect(((await third.json()) as { detail: string }).detail).to.match(/resolutions in progress/);
    for (const answer of await Promise.all(first)) expect(answer.status).to.equal(400);
  });
});
