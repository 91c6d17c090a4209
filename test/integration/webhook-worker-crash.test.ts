import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowIds } from '../../core/temporal/names';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { testEnv } from '../support/env';
import { killGroup } from '../support/processes';
import { testDb } from '../support/resources';
import { startWebhooksWorker, type ServiceProcess } from '../support/service-processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import {
  attemptsOf,
  configureReceiver,
  deliveryOfEvent,
  localWebhookConfig,
  localWebhookEnv,
  raiseEvent,
} from '../support/webhooks';

type WebhookDeliveryWorkflow = typeof webhookDeliveryWorkflow;

describe('webhooks worker process: crash safety', function () {
  this.timeout(120_000);
  const webhooks = localWebhookConfig();
  let temporal: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;
  const procs: ServiceProcess[] = [];

  before(async () => {
    temporal = await startDevServer();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    procs.forEach(killGroup);
    await Promise.all(procs.map((p) => p.exited));
    await receiver?.close();
    await temporal?.teardown();
  });

  /** `npm run worker:webhooks`, production mode only, against the test database; resolves once it polls. */
  async function startWorker(): Promise<ServiceProcess> {
    const proc = await startWebhooksWorker({
      WORKER_MODES: 'production',
      PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      PRODUCTION_TEMPORAL_NAMESPACE: DEV_SERVER_NAMESPACES[0],
      TEMPORAL_ADDRESS: temporal.address,
      ...localWebhookEnv(webhooks),
    });
    procs.push(proc);
    return proc;
  }

  it('completes a delivery whose worker was SIGKILLed while the receiver was slow, under the same delivery id', async () => {
    const tenant = await createTestTenant();
    await configureReceiver(webhooks, tenant.organization.id, receiver.url);
    const firstAnswer = createGate();
    let answered = 0;
    receiver.respondWith(async () => {
      if (answered++ === 0) await firstAnswer.opened; // the first request hangs until its worker is dead
      return { status: 200 };
    });

    const first = await startWorker();
    const eventId = await raiseEvent(tenant.organization.id);
    const [slow] = await receiver.waitForRequests(1, 30_000);
    expect(slow!.body.id).to.equal(eventId);
    killGroup(first); // mid-request: the receiver has not answered yet
    await first.exited;
    firstAnswer.open();
    const row = (await deliveryOfEvent(eventId))!;
    expect([row.status, row.attempt_count]).to.deep.equal(['Pending', 0]);

    await startWorker(); // a second worker, polling the same queue
    const handle = temporal.client.workflow.getHandle<WebhookDeliveryWorkflow>(workflowIds.webhookDelivery(row.id));
    expect((await handle.result()).deliveryStatus).to.equal('Succeeded');

    const forEvent = receiver.requests.filter((r) => r.body.id === eventId);
    expect(forEvent.length).to.be.at.least(2); // the cut-off request, then the retried one: duplicates are allowed
    expect(new Set(forEvent.map((r) => r.deliveryId))).to.deep.equal(new Set([row.id]));
    const final = (await deliveryOfEvent(eventId))!;
    expect(final.status).to.equal('Succeeded');
    expect((await attemptsOf(row.id)).map((a) => [a.number, a.http_status])).to.deep.equal([[1, 200]]);
    await testDb()('webhook_deliveries').where({ organization_id: tenant.organization.id }).delete();
  });
});
