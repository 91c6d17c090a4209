import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createDb } from '../../core/platform/db';
import { createRedis } from '../../core/platform/redis';
import { checkTemporal, createTemporalClient } from '../../core/temporal/connection';
import { NAMESPACES } from '../../core/temporal/names';
import { startTestServer, type TestServer } from '../support/app';
import { startDevServer } from '../support/temporal';

describe('GET /healthz', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;

  before(async () => {
    temporal = await startDevServer();
  });
  after(async () => {
    await temporal?.teardown();
  });

  async function withServer(options: Parameters<typeof startTestServer>[0], fn: (s: TestServer) => Promise<void>) {
    const server = await startTestServer(options);
    try {
      await fn(server);
    } finally {
      await server.close();
    }
  }

  const realTemporal = () => ({ checkTemporal: () => checkTemporal(temporal.client) });

  for (const mode of ['production', 'sandbox'] as const) {
    it(`answers 200 {ok: true, mode: "${mode}"} when PostgreSQL, Redis and Temporal answer`, async () => {
      await withServer({ mode, deps: realTemporal() }, async (server) => {
        const res = await fetch(`${server.baseUrl}/healthz`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        expect(await res.json()).to.deep.equal({ ok: true, mode });
      });
    });
  }

  it('answers a 503 problem naming Redis when Redis does not answer', async () => {
    const deadRedis = createRedis('redis://127.0.0.1:1');
    deadRedis.on('error', () => undefined);
    try {
      await withServer({ deps: { ...realTemporal(), redis: deadRedis } }, async (server) => {
        const res = await fetch(`${server.baseUrl}/healthz`);
        expect(res.status).to.equal(503);
        expect(res.headers.get('content-type')).to.equal('application/problem+json');
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).to.include({ title: 'service_unavailable', status: 503 });
        expect(body.failing).to.deep.equal(['redis']);
        expect(body.detail).to.contain('redis');
      });
    } finally {
      deadRedis.disconnect();
    }
  });

  it('answers a 503 problem naming Temporal when the Temporal server does not answer', async () => {
    const unreachable = createTemporalClient('127.0.0.1:1', NAMESPACES.production);
    await withServer({ deps: { checkTemporal: () => checkTemporal(unreachable, 500) } }, async (server) => {
      const res = await fetch(`${server.baseUrl}/healthz`);
      expect(res.status).to.equal(503);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.failing).to.deep.equal(['temporal']);
    });
  });

  it('answers a 503 problem naming the database when PostgreSQL does not answer', async () => {
    const deadDb = createDb('postgres://client_api:client_api@127.0.0.1:1/nothing');
    try {
      await withServer({ deps: { ...realTemporal(), db: deadDb } }, async (server) => {
        const res = await fetch(`${server.baseUrl}/healthz`);
        expect(res.status).to.equal(503);
        expect(((await res.json()) as { failing: string[] }).failing).to.deep.equal(['database']);
      });
    } finally {
      await deadDb.destroy();
    }
  });
});
