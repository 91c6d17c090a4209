/**
 * Fault tests against the real processes (API and webhooks worker, spawned), each fault applied to services of the
 * test's own: a PostgreSQL cluster, a redis-server and a restartable Temporal dev server. The machine's shared
 * services are never stopped or paused (other suites use them concurrently).
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { getPortalBranding } from '../../core/branding/portal-cache';
import { recordEvent } from '../../core/events/outbox';
import { callerFor, inlineDebtBody, type Caller, type Debt } from '../support/debt-api';
import { connectionCount, createTenantIn, terminateConnections } from '../support/fault-fixtures';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { createOwnTemporal, type OwnTemporal } from '../support/own-temporal';
import { killGroup } from '../support/processes';
import { startApi, startWebhooksWorker, type ApiProcess, type ServiceProcess } from '../support/service-processes';
import { DEV_SERVER_NAMESPACES } from '../support/temporal';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { localWebhookConfig, localWebhookEnv } from '../support/webhooks';

/** Generous: a request must complete, not be fast; the measured figures are printed for the report. */
const REQUEST_BOUND_MS = 5_000;

describe('faults against the real processes', function () {
  this.timeout(120_000);
  const webhooks = localWebhookConfig();
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let temporal: OwnTemporal;
  let receiver: WebhookReceiver;
  let api: ApiProcess;
  const procs: ServiceProcess[] = [];

  before(async () => {
    [pg, redis, temporal, receiver] = await Promise.all([
      startOwnPostgres(),
      startOwnRedis(),
      createOwnTemporal(),
      startWebhookReceiver(),
    ]);
    await temporal.start();
    api = await startApi({ ...serviceEnv(), DATABASE_URL: pg.databaseUrl, REDIS_URL: redis.url });
    procs.push(api);
  });
  after(async () => {
    procs.forEach(killGroup);
    await Promise.all(procs.map((p) => p.exited));
    await Promise.allSettled([pg?.destroy(), redis?.destroy(), temporal?.destroy(), receiver?.close()]);
  });

  function serviceEnv(): Record<string, string> {
    return { TEMPORAL_ADDRESS: temporal.address, ...localWebhookEnv(webhooks) };
  }

  /** Every request of a fault test carries a deadline, so a hang fails the test instead of stalling it. */
  function callerOf(headers: Record<string, string>): Caller {
    const call = callerFor(api.baseUrl, { headers });
    return (method, path, body, extra = {}) => call(method, path, body, extra);
  }

  async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const startedAt = performance.now();
    const value = await Promise.race([
      work(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${REQUEST_BOUND_MS} ms`)), REQUEST_BOUND_MS).unref(),
      ),
    ]);
    return { value, ms: Math.round(performance.now() - startedAt) };
  }

  describe('with the webhooks worker', () => {
    let worker: ServiceProcess;
    before(async () => {
      worker = await startWebhooksWorker({
        ...serviceEnv(),
        WORKER_MODES: 'production',
        PRODUCTION_DATABASE_URL: pg.databaseUrl,
        PRODUCTION_TEMPORAL_NAMESPACE: DEV_SERVER_NAMESPACES[0],
      });
      procs.push(worker);
    });
    after(async () => {
      killGroup(worker);
      await worker?.exited;
    });

    /** Resolves once the receiver has had a request for each event id. */
    async function waitForDeliveries(eventIds: string[], timeoutMs: number): Promise<void> {
      await waitFor(() => eventIds.every((id) => receiver.requests.some((r) => r.body.id === id)), {
        what: `deliveries of ${eventIds.length} events`,
        timeoutMs,
        intervalMs: 100,
      });
    }

    async function eventOfDebt(debtId: string): Promise<string> {
      const row = await pg
        .db('events')
        .whereRaw("type = 'debt.created' and data->'debt'->>'id' = ?", [debtId])
        .first<{ id: string }>('id');
      if (!row) throw new Error(`no debt.created event for ${debtId}`);
      return row.id;
    }

    it('answers 201 to new debts while Temporal is down, and delivers every event once Temporal is back', async () => {
      const tenant = await createTenantIn(pg.db, { webhooks, url: receiver.url });
      const call = callerOf(tenant.headers);
      await temporal.stop();
      const debts: Debt[] = [];
      for (let i = 0; i < 3; i++) {
        const { value: res, ms } = await timed(() => call<Debt>('POST', '/v1/debts', inlineDebtBody()));
        expect(res.status, res.text).to.equal(201);
        console.log(`      POST /v1/debts with Temporal down: ${res.status} in ${ms} ms`);
        debts.push(res.body);
      }
      const eventIds = await Promise.all(debts.map((debt) => eventOfDebt(debt.id)));
      // Down long enough for the client's own gRPC retries to give up, so the relay's recovery is what is tested.
      await waitFor(() => worker.output().includes('workflow start failed'), {
        what: 'the delivery starter to fail on the missing Temporal',
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      await temporal.start();
      const backAt = Date.now();
      await waitForDeliveries(eventIds, 60_000);
      console.log(`      all ${eventIds.length} events delivered ${Date.now() - backAt} ms after Temporal was back`);
      for (const eventId of eventIds) {
        const deliveryIds = receiver.requests.filter((r) => r.body.id === eventId).map((r) => r.deliveryId);
        expect(new Set(deliveryIds).size, `deliveries of ${eventId}`).to.equal(1);
      }
    });

    it("keeps delivering after the relay's LISTEN and pool connections are terminated", async () => {
      const tenant = await createTenantIn(pg.db, { webhooks, url: receiver.url });
      const raise = async () =>
        (await pg.db.transaction((trx) => recordEvent(trx, tenant.organization.id, 'test.ping', {}))).id;
      const before = await raise();
      await waitForDeliveries([before], 30_000);
      await waitFor(async () => (await connectionCount(pg.db, 'outbox-relay')) === 1, { what: 'the LISTEN' });

      const killed = await terminateConnections(pg.db, ['outbox-relay', 'client-public-api']);
      expect(killed).to.be.at.least(2); // the LISTEN connection and at least one pool connection
      const after = await raise();
      await waitForDeliveries([after], 30_000);
      await waitFor(async () => (await connectionCount(pg.db, 'outbox-relay')) === 1, {
        what: 'the relay to LISTEN again',
      });
    });
  });

  it('answers within the bound while Redis accepts connections but never replies (rate limits fail open)', async () => {
    const tenant = await createTenantIn(pg.db);
    const call = callerOf(tenant.headers);
    // Precondition: Redis answers (under load a first check may already have failed open).
    await waitFor(async () => (await call('GET', '/v1/organization')).headers.get('x-ratelimit-limit') !== null, {
      what: 'rate limit headers while Redis answers',
    });
    redis.pause();
    try {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { value: res, ms } = await timed(() => call('GET', '/v1/organization'));
        expect(res.status, res.text).to.equal(200);
        expect(res.headers.get('x-ratelimit-limit')).to.equal(null); // failing open: no window to report
        times.push(ms);
      }
      // The write commits; the portal cache cannot be invalidated, which the answer must say rather than hang.
      const patch = await timed(() => call('PATCH', '/v1/organization/branding', { brandTagline: 'Paused cache' }));
      expect(patch.value.status, patch.value.text).to.equal(503);
      expect(patch.value.body.title).to.equal('service_unavailable');
      console.log(`      with Redis paused: GET ${times.join(', ')} ms; PATCH branding ${patch.ms} ms`);
    } finally {
      redis.resume();
    }
    await waitFor(async () => (await call('GET', '/v1/organization')).headers.get('x-ratelimit-limit') !== null, {
      what: 'rate limit headers once Redis answers again',
    });
  });

  it('leaves no stale portal branding when a PATCH committed but could not invalidate the cache, once retried', async () => {
    const tenant = await createTenantIn(pg.db);
    const call = callerOf(tenant.headers);
    const cache = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      expect((await call('PATCH', '/v1/organization/branding', { brandTagline: 'Before' })).status).to.equal(200);
      expect((await getPortalBranding(pg.db, cache, tenant.organization.id)).brandTagline).to.equal('Before');
      const patch = { brandTagline: 'After' };
      const key = { 'Idempotency-Key': `branding-${tenant.organization.id}` };
      redis.pause();
      try {
        const failed = await timed(() => call('PATCH', '/v1/organization/branding', patch, key));
        expect(failed.value.status, failed.value.text).to.equal(503); // committed; the cache could not be told
      } finally {
        redis.resume();
      }
      const retried = await call('PATCH', '/v1/organization/branding', patch, key);
      expect(retried.status, retried.text).to.equal(200);
      expect(retried.headers.get('idempotent-replayed')).to.equal('true');
      expect((await getPortalBranding(pg.db, cache, tenant.organization.id)).brandTagline).to.equal('After');
    } finally {
      cache.disconnect();
    }
  });

  it('answers 503 problem documents while PostgreSQL is down, and 2xx again once it is back, without a restart', async () => {
    const tenant = await createTenantIn(pg.db);
    const call = callerOf(tenant.headers);
    expect((await call('GET', '/v1/debts')).status).to.equal(200);
    await pg.stop();
    try {
      for (const [method, path, body] of [
        ['GET', '/v1/debts', undefined],
        ['POST', '/v1/debts', inlineDebtBody()],
      ] as const) {
        const { value: res, ms } = await timed(() => call(method, path, body));
        expect(res.status, res.text).to.equal(503);
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(res.body).to.include({ title: 'service_unavailable', status: 503 });
        console.log(`      ${method} ${path} with PostgreSQL down: ${res.status} in ${ms} ms`);
      }
    } finally {
      await pg.start();
    }
    // The pool's connections died with the server: the first requests after the restart must not fail on them.
    const list = await call('GET', '/v1/debts');
    expect(list.status, list.text).to.equal(200);
    const created = await call('POST', '/v1/debts', inlineDebtBody());
    expect(created.status, created.text).to.equal(201);
  });
});
