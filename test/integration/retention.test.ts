import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Registry } from 'prom-client';
import { createRetentionPurgeActivities } from '../../activities/retention-purge';
import { createLogger } from '../../core/platform/logger';
import { purgeExpiredRows, type PurgeOptions } from '../../core/retention/purge';
import { ensureRetentionSchedule } from '../../core/retention/schedule';
import { SCHEDULE_IDS } from '../../core/temporal/names';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { testDb } from '../support/resources';
import {
  ageEvent,
  attemptCount,
  everyConsumerTakes,
  laggingConsumer,
  remainingDeliveries,
  remainingEvents,
  settleDelivery,
} from '../support/retention';
import { startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { configureReceiver, localWebhookConfig, raiseEvent } from '../support/webhooks';

const RECEIVER = 'http://127.0.0.1:9/hook';

/** A tenant with a receiver, so each event it raises gets a delivery when dispatched. */
async function tenantWithReceiver(): Promise<string> {
  const tenant = await createTestTenant();
  await configureReceiver(localWebhookConfig(), tenant.organization.id, RECEIVER);
  return tenant.organization.id;
}

/** An event past the retention period whose delivery is settled as given (and equally old). */
async function oldDeliveredEvent(organizationId: string, status: 'Succeeded' | 'Failed' | 'Pending') {
  const eventId = await raiseEvent(organizationId);
  await ageEvent(eventId);
  return { eventId, deliveryId: await settleDelivery(eventId, status, true) };
}

const purge = (organizationId: string, options: Partial<PurgeOptions> = {}) =>
  purgeExpiredRows({ db: testDb(), mode: 'production', organizationId, ...options });

describe('retention: rows past their period are purged in bounded batches', function () {
  this.timeout(60_000);

  it('purges old final deliveries with their attempts, then their events, one bounded batch per statement', async () => {
    const organizationId = await tenantWithReceiver();
    const old = [];
    for (const status of ['Succeeded', 'Failed', 'Succeeded', 'Failed', 'Succeeded'] as const) {
      old.push(await oldDeliveredEvent(organizationId, status));
    }
    const recentEvent = await raiseEvent(organizationId);
    const recentDelivery = await settleDelivery(recentEvent, 'Succeeded', false);
    await everyConsumerTakes(organizationId);

    const report = await purge(organizationId, { batchSize: 2 });

    expect(report.kinds.webhook_deliveries).to.deep.equal({ purged: 5, statements: 3 });
    expect(report.kinds.events).to.deep.equal({ purged: 5, statements: 3 });
    expect(report.complete).to.equal(true);
    expect(await remainingEvents(organizationId)).to.deep.equal([recentEvent]);
    expect(await remainingDeliveries(organizationId)).to.deep.equal([recentDelivery]);
    expect(await attemptCount(old.map((o) => o.deliveryId))).to.equal(0);
    expect(await attemptCount([recentDelivery])).to.equal(1);
  });

  it('keeps an old Pending delivery and its event, however old', async () => {
    const organizationId = await tenantWithReceiver();
    const pending = await oldDeliveredEvent(organizationId, 'Pending');
    const final = await oldDeliveredEvent(organizationId, 'Failed');
    await everyConsumerTakes(organizationId);

    const report = await purge(organizationId);

    expect(report.kinds.webhook_deliveries.purged).to.equal(1);
    expect(report.kinds.events.purged).to.equal(1);
    expect(await remainingEvents(organizationId)).to.deep.equal([pending.eventId]);
    expect(await remainingDeliveries(organizationId)).to.deep.equal([pending.deliveryId]);
    expect(await attemptCount([pending.deliveryId, final.deliveryId])).to.equal(1);
  });

  it('keeps an old event until every outbox consumer has taken it', async () => {
    const tenant = await createTestTenant(); // no receiver: its events get no delivery
    const organizationId = tenant.organization.id;
    const eventId = await raiseEvent(organizationId);
    await ageEvent(eventId);
    await everyConsumerTakes(organizationId);
    const forget = await laggingConsumer(`retention-test-laggard-${randomUUID()}`, eventId);
    try {
      expect((await purge(organizationId)).kinds.events.purged).to.equal(0);
      expect(await remainingEvents(organizationId)).to.deep.equal([eventId]);
    } finally {
      await forget();
    }
    expect((await purge(organizationId)).kinds.events.purged).to.equal(1);
    expect(await remainingEvents(organizationId)).to.deep.equal([]);
  });

  it('purges expired idempotency records in batches and keeps live ones', async () => {
    const { organization } = await createTestTenant();
    const record = (key: string, expiresAt: string) => ({
      organization_id: organization.id,
      key,
      fingerprint: 'f',
      response_status: 201,
      response_headers: '{}',
      response_body: '{}',
      request_id: 'req',
      created_at: testDb().raw(`now() - interval '2 days'`),
      expires_at: testDb().raw(expiresAt),
    });
    await testDb()('idempotency_keys').insert([
      ...['a', 'b', 'c'].map((key) => record(`expired-${key}`, `now() - interval '1 hour'`)),
      record('live', `now() + interval '1 hour'`),
    ]);

    const report = await purge(organization.id, { batchSize: 2 });

    expect(report.kinds.idempotency_records).to.deep.equal({ purged: 3, statements: 2 });
    const left = await testDb()('idempotency_keys').where({ organization_id: organization.id }).select('key');
    expect(left.map((row) => row.key)).to.deep.equal(['live']);
  });

  it('has the indexes the filtered lists and the purge read', async () => {
    const { rows } = await testDb().raw<{ rows: { indexname: string; indexdef: string }[] }>(
      `select indexname, indexdef from pg_indexes where tablename in ('events', 'webhook_deliveries', 'idempotency_keys')`,
    );
    const defs = rows.map((row) => row.indexdef.replace(/^.* USING btree /, ''));
    expect(defs).to.include.members([
      '(organization_id, type, created_at DESC, id DESC)',
      '(organization_id, status, created_at DESC, id DESC)',
      '(created_at)',
      `(created_at) WHERE (status <> 'Pending'::text)`,
      '(expires_at)',
    ]);
  });
});

describe('retention: the purge on a Temporal Schedule', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;
  let stack: DeliveryStack;
  let scheduledTenant: string | undefined;
  const registry = new Registry();

  before(async () => {
    temporal = await startDevServer();
    stack = await startDeliveryStack(temporal, {
      relay: false,
      // Scheduled passes look at this test's tenant only: the shared test database holds other files' leftovers.
      extraActivities: () => ({
        purgeExpiredRows: () =>
          createRetentionPurgeActivities({
            db: testDb(),
            mode: 'production',
            logger: createLogger({ level: 'silent', name: 'retention-test' }),
            registry,
            organizationId: scheduledTenant,
          }).purgeExpiredRows(),
      }),
    });
  });
  after(async () => {
    await stack?.stop();
    await temporal?.teardown();
  });

  it('is created idempotently, and a scheduled pass purges and counts what it purged', async () => {
    const organizationId = await tenantWithReceiver();
    scheduledTenant = organizationId;
    await oldDeliveredEvent(organizationId, 'Succeeded');
    await everyConsumerTakes(organizationId);

    expect(await ensureRetentionSchedule(stack.client, stack.taskQueue)).to.equal(true);
    expect(await ensureRetentionSchedule(stack.client, stack.taskQueue)).to.equal(false);
    const schedule = stack.client.schedule.getHandle(SCHEDULE_IDS.retentionPurge);
    try {
      await schedule.trigger();
      await waitFor(async () => (await remainingEvents(organizationId)).length === 0, {
        timeoutMs: 30_000,
        what: 'the scheduled pass to purge the old event',
      });
      const counted = (kind: string) =>
        new RegExp(`client_api_retention_purged_rows_total\\{mode="production",kind="${kind}"\\} 1\\b`);
      await waitFor(
        async () => {
          const text = await registry.getSingleMetricAsString('client_api_retention_purged_rows_total');
          return counted('events').test(text) && counted('webhook_deliveries').test(text);
        },
        { timeoutMs: 10_000, what: 'the pass to count one event and one delivery purged' },
      );
    } finally {
      await schedule.delete();
    }
  });
});
