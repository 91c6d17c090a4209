import { expect } from 'chai';
import { createRedis } from '../../core/platform/redis';
import { startTestServer, type TestServer } from '../support/app';
import { testRedis } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('Rate limits per key (Redis, hourly and daily windows)', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  const get = (s: TestServer, headers: Record<string, string>) => fetch(`${s.baseUrl}/v1/organization`, { headers });

  it('admits exactly the limit out of a concurrent burst, and refuses the rest with 429 and Retry-After', async () => {
    const tenant = await createTestTenant({ hourlyLimit: 20 });
    const responses = await Promise.all(Array.from({ length: 60 }, () => get(server, tenant.headers)));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length).to.equal(20);
    expect(limited.length).to.equal(40);
    const refusal = limited[0]!;
    expect(refusal.headers.get('content-type')).to.equal('application/problem+json');
    expect(((await refusal.json()) as { title: string }).title).to.equal('rate_limited');
    const retryAfter = Number(refusal.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 3600);
    expect(refusal.headers.get('x-ratelimit-limit')).to.equal('20');
    expect(refusal.headers.get('x-ratelimit-remaining')).to.equal('0');
    const reset = Number(refusal.headers.get('x-ratelimit-reset'));
    expect(reset - Math.floor(Date.now() / 1000)).to.be.within(retryAfter - 2, retryAfter + 2);
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
  });

  it('enforces the daily window too, and reports the window closest to running out', async () => {
    const tenant = await createTestTenant({ hourlyLimit: 100, dailyLimit: 3 });
    const statuses: number[] = [];
    let first: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await get(server, tenant.headers);
      first ??= res;
      statuses.push(res.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    expect(first!.headers.get('x-ratelimit-limit')).to.equal('3');
    expect(first!.headers.get('x-ratelimit-remaining')).to.equal('2');
  });

  it('charges neither window for a refused request', async () => {
    const tenant = await createTestTenant({ hourlyLimit: 2, dailyLimit: 100 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(server, tenant.headers)).status);
    expect(statuses).to.deep.equal([200, 200, 429, 429, 429]);
    expect(await testRedis().get(`rl:production:hourly:${tenant.keyId}`)).to.equal('2');
    expect(await testRedis().get(`rl:production:daily:${tenant.keyId}`)).to.equal('2');
  });

  it('uses the spec defaults per mode: 1000/hour for live keys and 3600/hour for test keys', async () => {
    const live = await createTestTenant();
    const liveRes = await get(server, live.headers);
    expect(liveRes.headers.get('x-ratelimit-limit')).to.equal('1000');
    expect(liveRes.headers.get('x-ratelimit-remaining')).to.equal('999');
    const sandbox = await startTestServer({ mode: 'sandbox' });
    try {
      const test = await createTestTenant({ mode: 'sandbox' });
      const testRes = await get(sandbox, test.headers);
      expect(testRes.status).to.equal(200);
      expect(testRes.headers.get('x-ratelimit-limit')).to.equal('3600');
    } finally {
      await sandbox.close();
    }
  });

  it('fails open when Redis is unreachable: serves, logs it, and counts it in metrics', async () => {
    const deadRedis = createRedis('redis://127.0.0.1:1');
    deadRedis.on('error', () => undefined);
    const isolated = await startTestServer({ deps: { redis: deadRedis } });
    try {
      const tenant = await createTestTenant({ hourlyLimit: 1 });
      for (let i = 0; i < 3; i++) {
        const res = await get(isolated, tenant.headers);
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-ratelimit-limit')).to.equal(null);
      }
      const failOpen = isolated.logLines().filter((l) => l.msg === 'rate limit check failed; serving (fail open)');
      expect(failOpen.length).to.equal(3);
      const metrics = await (await fetch(isolated.metricsUrl)).text();
      expect(metrics).to.match(/^client_api_rate_limit_fail_open_total 3$/m);
    } finally {
      await isolated.close();
      deadRedis.disconnect();
    }
  });
});
