/**
 * The debounce of sandbox activity signals (DECISIONS.md §6) against real Redis: across API processes a tenant's use
 * is signalled at most once a minute; tenants are debounced apart; a failed signal never reaches the request; and
 * with Redis unreachable the signal is still sent (a tenant in use is not reset because Redis was down), bounded by
 * the process's own per-minute memory. On the sandbox host a request is answered without waiting for the signal.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../core/platform/logger';
import { createRedis, redisReady } from '../../core/platform/redis';
import { createActivityTouch, TOUCH_DEBOUNCE_MS } from '../../core/sandbox/activity-touch';
import type { SandboxResets } from '../../core/sandbox/resets';
import { startTestServer } from '../support/app';
import { testRedis } from '../support/resources';
import { recordingResets } from '../support/sandbox';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';

const silent = () =>
  createLogger({ level: 'warn', name: 'touch-test', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('Sandbox activity signals: debounced through Redis', () => {
  before(() => redisReady(testRedis()));

  it('signals a tenant once a minute whichever API process sees its requests, and each tenant apart', async () => {
    const resets = recordingResets();
    let clock = Date.now();
    const processes = [1, 2, 3].map(() =>
      createActivityTouch({ redis: testRedis(), resets, logger: silent(), now: () => clock }),
    );
    const [a, b] = [randomUUID(), randomUUID()];
    await Promise.all(processes.flatMap((p) => [p.touch(a), p.touch(a), p.touch(b)]));
    expect(resets.calls.filter((c) => c.organizationId === a)).to.have.length(1);
    expect(resets.calls.filter((c) => c.organizationId === b)).to.have.length(1);

    // A minute later (the Redis key has expired by then), the next request signals again.
    await testRedis().del(`sandbox:used:${a}`);
    clock += TOUCH_DEBOUNCE_MS;
    await Promise.all(processes.map((p) => p.touch(a)));
    expect(resets.calls.filter((c) => c.organizationId === a)).to.have.length(2);
  });

  it('swallows and logs a failed signal', async () => {
    const failing: Pick<SandboxResets, 'recordUse'> = { recordUse: () => Promise.reject(new Error('temporal down')) };
    const touch = createActivityTouch({ redis: testRedis(), resets: failing, logger: silent() });
    await touch.touch(randomUUID()); // resolves: never rejects
  });

  it('still signals when Redis is unreachable, once a minute per process', async () => {
    const deadRedis = createRedis('redis://127.0.0.1:1');
    deadRedis.on('error', () => undefined);
    try {
      const resets = recordingResets();
      const touch = createActivityTouch({ redis: deadRedis, resets, logger: silent() });
      const org = randomUUID();
      await touch.touch(org);
      await touch.touch(org);
      expect(resets.calls).to.deep.equal([{ kind: 'recordUse', organizationId: org }]);
    } finally {
      deadRedis.disconnect();
    }
  });

  it('answers a sandbox request without waiting for the signal', async () => {
    const released = createGate();
    const signalled: string[] = [];
    const resets: SandboxResets = {
      ...recordingResets(),
      recordUse: async (organizationId) => {
        await released.opened; // a signal that never ends until the test says so
        signalled.push(organizationId);
      },
    };
    const server = await startTestServer({ mode: 'sandbox', deps: { sandboxResets: resets } });
    try {
      const tenant = await createTestTenant({ mode: 'sandbox' });
      const res = await fetch(`${server.baseUrl}/v1/organization`, { headers: tenant.headers });
      expect(res.status).to.equal(200);
      expect(signalled).to.deep.equal([]);
      released.open();
      await waitFor(() => signalled.includes(tenant.organization.id), { what: 'the signal' });
    } finally {
      released.open();
      await server.close();
    }
  });
});
