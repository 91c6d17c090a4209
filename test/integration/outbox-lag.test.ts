/**
 * The outbox lag gauge against real PostgreSQL: a consumer whose relay is stopped falls behind (its lag is the age of
 * the oldest event it has not taken, and grows), and once a relay runs it again the lag drops to zero.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { ensureCursor } from '../../core/events/cursor';
import { OUTBOX_LAG_METRIC, reportOutboxLag } from '../../core/events/outbox-lag';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { createLogger } from '../../core/platform/logger';
import { testEnv } from '../support/env';
import { sampleValue } from '../support/metrics';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { raiseEvent } from '../support/webhooks';

describe('outbox lag metric', function () {
  this.timeout(60_000);
  let relay: OutboxRelay | undefined;
  let stopReporting: (() => void) | undefined;
  afterEach(async () => {
    stopReporting?.();
    await relay?.stop();
  });

  it('is the age of the oldest event a stopped consumer has not taken, and drops to 0 once its relay runs', async () => {
    const consumer = { name: `test-lag-${Date.now().toString(36)}`, startAt: 'now' as const, consume: async () => {} };
    await ensureCursor(testDb(), consumer, 'production');
    const registry = new Registry();
    stopReporting = reportOutboxLag({ db: testDb(), mode: 'production', consumers: [consumer.name] }, registry);
    const lag = async () =>
      sampleValue(await registry.metrics(), OUTBOX_LAG_METRIC, { mode: 'production', consumer: consumer.name });

    const tenant = await createTestTenant();
    await raiseEvent(tenant.organization.id);
    const first = await lag();
    expect(first).to.be.greaterThan(0);
    await waitFor(async () => (await lag())! > first!, { what: 'the lag to grow while nothing takes the event' });

    relay = startOutboxRelay({
      mode: 'production',
      db: testDb(),
      databaseUrl: testEnv.databaseUrl,
      logger: createLogger({ level: 'silent', name: 'lag-test' }),
      consumers: [consumer],
    });
    await waitFor(async () => (await lag()) === 0, {
      what: 'the lag to drop to 0 once the relay took the event',
      timeoutMs: 45_000,
    });
  });

  it('leaves a consumer out while the database does not answer, without failing the scrape', async () => {
    const registry = new Registry();
    const broken = { raw: () => Promise.reject(new Error('connection refused')) } as unknown as Parameters<
      typeof reportOutboxLag
    >[0]['db'];
    stopReporting = reportOutboxLag({ db: broken, mode: 'production', consumers: ['webhook-deliveries'] }, registry);
    const text = await registry.metrics();
    expect(text).to.contain(`# TYPE ${OUTBOX_LAG_METRIC} gauge`);
    expect(sampleValue(text, OUTBOX_LAG_METRIC, { consumer: 'webhook-deliveries' })).to.equal(undefined);
  });
});
