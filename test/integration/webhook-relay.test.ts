import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookDeliveryActivities } from '../../activities/webhook-delivery';
import { createSecretBox } from '../../core/platform/secret-box';
import type { Mode } from '../../core/platform/config';
import { createLogger } from '../../core/platform/logger';
import { workflowIds } from '../../core/temporal/names';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { createWebhookDeliveryConsumer, WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { clearWebhookConfig } from '../../core/webhooks/receiver-config';
import { startTestServer } from '../support/app';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { DEV_SERVER_NAMESPACES, bundleWorkflows, startDevServer, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';
import {
  configureReceiver,
  deliveryOfEvent,
  dispatchAll,
  isConsumed,
  localWebhookConfig,
  localWebhookEnv,
  raiseEvent,
} from '../support/webhooks';
import { silentLogger } from '../support/logger';

type WebhookDeliveryWorkflow = typeof webhookDeliveryWorkflow;

const logger = createLogger({ level: process.env.RELAY_TEST_LOG ?? 'silent', name: 'relay-test' });

describe('webhook relay and delivery on a Temporal dev server', function () {
  this.timeout(120_000);
  const webhooks = localWebhookConfig();
  const namespaceOf: Record<Mode, string> = { production: DEV_SERVER_NAMESPACES[0], sandbox: DEV_SERVER_NAMESPACES[1] };
  let temporal: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;
  let taskQueue: string;
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  const relays = new Map<Mode, OutboxRelay>();

  function startRelay(mode: Mode): void {
    const client = new Client({ connection: temporal.connection, namespace: namespaceOf[mode] });
    const relay = startOutboxRelay({
      mode,
      db: testDb(),
      databaseUrl: testEnv.databaseUrl,
      consumers: [
        createWebhookDeliveryConsumer({ logger: silentLogger('test'), mode, db: testDb(), client, taskQueue }),
      ],
      logger,
    });
    relays.set(mode, relay);
  }

  async function stopRelay(mode: Mode): Promise<void> {
    await relays.get(mode)?.stop();
    relays.delete(mode);
  }

  before(async () => {
    temporal = await startDevServer();
    receiver = await startWebhookReceiver();
    taskQueue = uniqueTaskQueue('webhooks-relay');
    const workflowBundle = await bundleWorkflows(require.resolve('../../workflows/bundles/webhooks'));
    for (const mode of ['production', 'sandbox'] as const) {
      const worker = await Worker.create({
        connection: temporal.nativeConnection,
        namespace: namespaceOf[mode],
        taskQueue,
        workflowBundle,
        activities: createWebhookDeliveryActivities({
          db: testDb(),
          webhooks,
          secretBox: createSecretBox(webhooks.secretKeys),
        }),
      });
      workers.push({ worker, running: worker.run() });
      startRelay(mode);
    }
  });
  after(async () => {
    for (const mode of [...relays.keys()]) await stopRelay(mode);
    for (const { worker } of workers) worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.running));
    await receiver?.close();
    await temporal?.teardown();
  });
  beforeEach(() => receiver.respondWith(() => ({ status: 200, body: 'ok' })));

  const requestsFor = (deliveryId: string) => receiver.requests.filter((r) => r.deliveryId === deliveryId);

  async function configuredTenant(mode: Mode = 'production') {
    const tenant = await createTestTenant({ mode });
    const secret = await configureReceiver(webhooks, tenant.organization.id, receiver.url);
    return { tenant, secret };
  }

  async function deliveredRequest(eventId: string) {
    return waitFor(() => receiver.requests.find((r) => r.body.id === eventId), {
      timeoutMs: 20_000,
      what: `the receiver to get event ${eventId}`,
    });
  }

  it('delivers a committed event as one signed delivery through workflow webhook-delivery-<deliveryId>', async () => {
    const { tenant, secret } = await configuredTenant();
    const eventId = await raiseEvent(tenant.organization.id);
    const request = await deliveredRequest(eventId);
    const row = (await deliveryOfEvent(eventId))!;
    expect(request.deliveryId).to.equal(row.id);
    expect(verifySignature(request.signature, request.rawBody, secret).ok).to.equal(true);
    expect(request.body).to.include({ id: eventId, type: 'debt.created' });
    const handle = temporal.client.workflow.getHandle<WebhookDeliveryWorkflow>(workflowIds.webhookDelivery(row.id));
    expect((await handle.result()).deliveryStatus).to.equal('Succeeded');
    // The starter records its starts in batches (core/temporal/fair-starter.ts), so a fast run can end first.
    const final = await waitFor(
      async () => {
        const row = await deliveryOfEvent(eventId);
        return row?.workflow_started_at ? row : undefined;
      },
      { timeoutMs: 10_000, what: 'the run’s start to be recorded' },
    );
    expect([final.status, final.attempt_count, final.workflow_started_at]).to.have.members([
      'Succeeded',
      1,
      final.workflow_started_at,
    ]);
    expect(final.workflow_started_at).to.be.instanceOf(Date);
  });

  it('events raised while no configuration is enabled are dispatched with no delivery', async () => {
    const tenant = await createTestTenant();
    const eventId = await raiseEvent(tenant.organization.id);
    await waitFor(() => isConsumed(WEBHOOK_DELIVERY_CONSUMER, 'production', eventId), {
      timeoutMs: 20_000,
      what: 'the webhook consumer to take the event',
    });
    expect(await deliveryOfEvent(eventId)).to.equal(undefined);
  });

  it('loses nothing across a relay stop and restart: every event raised meanwhile is delivered once', async () => {
    const { tenant } = await configuredTenant();
    await stopRelay('production');
    const eventIds: string[] = [];
    for (let i = 0; i < 5; i++) eventIds.push(await raiseEvent(tenant.organization.id));
    // No relay runs, so nothing can take them: the consumer's cursor is still before every one, and their deliveries,
    // enqueued with the events, have no workflow yet.
    for (const eventId of eventIds)
      expect(await isConsumed(WEBHOOK_DELIVERY_CONSUMER, 'production', eventId)).to.equal(false);
    const waiting = await testDb()('webhook_deliveries').whereIn('event_id', eventIds).whereNull('workflow_started_at');
    expect(waiting).to.have.length(5);
    startRelay('production');
    for (const eventId of eventIds) await deliveredRequest(eventId);
    const deliveries = await testDb()('webhook_deliveries').whereIn('event_id', eventIds);
    expect(deliveries).to.have.length(5);
    for (const d of deliveries) {
      await temporal.client.workflow.getHandle<WebhookDeliveryWorkflow>(workflowIds.webhookDelivery(d.id)).result();
      expect(requestsFor(d.id)).to.have.length(1);
    }
  });

  it('delivers events emitted before a clear, to the snapshotted receiver, even if the relay only sees them after it', async () => {
    const { tenant, secret } = await configuredTenant();
    await stopRelay('production');
    const eventIds: string[] = [];
    for (let i = 0; i < 3; i++) eventIds.push(await raiseEvent(tenant.organization.id));
    await testDb().transaction((trx) => clearWebhookConfig(trx, tenant.organization.id));
    const afterClear = await raiseEvent(tenant.organization.id);
    startRelay('production');
    for (const eventId of eventIds) {
      const request = await deliveredRequest(eventId);
      expect(verifySignature(request.signature, request.rawBody, secret).ok).to.equal(true);
    }
    await waitFor(() => isConsumed(WEBHOOK_DELIVERY_CONSUMER, 'production', afterClear), {
      timeoutMs: 20_000,
      what: 'the consumer to take the event raised after the clear',
    });
    expect(await deliveryOfEvent(afterClear)).to.equal(undefined);
  });

  it('starts deliveries committed by a relay that died before starting their workflows', async () => {
    const { tenant } = await configuredTenant();
    await stopRelay('production');
    const eventId = await raiseEvent(tenant.organization.id);
    await dispatchAll('production'); // committed, then "crashed": no workflow was started
    const row = (await deliveryOfEvent(eventId))!;
    expect(row.workflow_started_at).to.equal(null);
    startRelay('production');
    expect((await deliveredRequest(eventId)).deliveryId).to.equal(row.id);
  });

  it('is idempotent: starting a running delivery again (its start went unrecorded) sends it once', async () => {
    const { tenant } = await configuredTenant();
    const answer = createGate();
    receiver.respondWith(async () => {
      await answer.opened; // the workflow stays running until the test has started it again
      return { status: 200 };
    });
    const eventId = await raiseEvent(tenant.organization.id);
    const request = await deliveredRequest(eventId);
    // The workflow is running: as if the relay had crashed after starting it but before recording that.
    await testDb()('webhook_deliveries').where({ id: request.deliveryId }).update({ workflow_started_at: null });
    await testDb().raw(`select pg_notify('webhook_outbox', '')`);
    await waitFor(async () => (await deliveryOfEvent(eventId))?.workflow_started_at, {
      timeoutMs: 20_000,
      what: 'the relay to record the workflow as started again',
    });
    answer.open();
    await temporal.client.workflow
      .getHandle<WebhookDeliveryWorkflow>(workflowIds.webhookDelivery(request.deliveryId!))
      .result();
    expect(requestsFor(request.deliveryId!)).to.have.length(1);
    expect(await testDb()('webhook_deliveries').where({ event_id: eventId })).to.have.length(1);
  });

  it('delivers in the sandbox too, through the sandbox namespace', async () => {
    const { tenant, secret } = await configuredTenant('sandbox');
    const eventId = await raiseEvent(tenant.organization.id);
    const request = await deliveredRequest(eventId);
    expect(verifySignature(request.signature, request.rawBody, secret).ok).to.equal(true);
    const sandboxClient = new Client({ connection: temporal.connection, namespace: namespaceOf.sandbox });
    const result = await sandboxClient.workflow
      .getHandle<WebhookDeliveryWorkflow>(workflowIds.webhookDelivery(request.deliveryId!))
      .result();
    expect(result.deliveryStatus).to.equal('Succeeded');
  });

  describe('through the API', () => {
    it('POST /v1/webhooks/test delivers a test.ping whose Service-Delivery-Id is the answered deliveryId', async () => {
      const api = await startTestServer({ env: localWebhookEnv(webhooks) });
      try {
        const { tenant, secret } = await configuredTenant();
        const res = await fetch(`${api.baseUrl}/v1/webhooks/test`, { method: 'POST', headers: tenant.headers });
        expect(res.status).to.equal(202);
        const { eventId, deliveryId } = (await res.json()) as { eventId: string; deliveryId: string };
        const request = await deliveredRequest(eventId);
        expect(request.deliveryId).to.equal(deliveryId);
        expect(request.body).to.deep.include({ id: eventId, type: 'test.ping', data: {} });
        expect(verifySignature(request.signature, request.rawBody, secret).ok).to.equal(true);
      } finally {
        await api.close();
      }
    });

    it('POST /v1/webhooks/deliveries/{id}/retry sends a Failed delivery again under the same id', async () => {
      const api = await startTestServer({ env: localWebhookEnv(webhooks) });
      try {
        const { tenant } = await configuredTenant();
        await stopRelay('production');
        const eventId = await raiseEvent(tenant.organization.id);
        await dispatchAll('production');
        // As a finished run leaves it: seven failed attempts, status Failed.
        const row = (await deliveryOfEvent(eventId))!;
        await testDb()('webhook_deliveries')
          .where({ id: row.id })
          .update({ status: 'Failed', attempt_count: 7, workflow_started_at: new Date() });
        startRelay('production');
        const res = await fetch(`${api.baseUrl}/v1/webhooks/deliveries/${row.id}/retry`, {
          method: 'POST',
          headers: tenant.headers,
        });
        expect(res.status).to.equal(202);
        expect(await res.json()).to.include({ id: row.id, status: 'Pending', attemptCount: 7 });
        expect((await deliveredRequest(eventId)).deliveryId).to.equal(row.id);
        const final = await waitFor(
          async () => {
            const r = await deliveryOfEvent(eventId);
            return r?.status === 'Succeeded' && r;
          },
          { timeoutMs: 20_000, what: 'the delivery to succeed' },
        );
        expect([final.generation, final.attempt_count]).to.deep.equal([1, 8]);
      } finally {
        await api.close();
      }
    });
  });
});
