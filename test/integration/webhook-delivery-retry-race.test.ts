import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DeliverAttemptInput, WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { workflowIds } from '../../core/temporal/names';
import { startTestServer, type TestServer } from '../support/app';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, deliveryOfEvent, localWebhookEnv, raiseEvent } from '../support/webhooks';

/**
 * Generation 0's attempt is its run's last (its failure is final, as the seventh attempt's is), and it is held open
 * after recording the Failed status until the test opens the gate: the run is still closing while the retry comes.
 */
function holdLastAttemptOfFirstRun(closing: Promise<void>) {
  return (real: WebhookDeliveryActivities) => ({
    async deliverWebhookAttempt(input: DeliverAttemptInput) {
      if (input.generation !== 0) return real.deliverWebhookAttempt(input);
      const result = await real.deliverWebhookAttempt({ ...input, retryDelayMs: null });
      await closing; // a local activity: the worker keeps its workflow task alive meanwhile
      return result;
    },
  });
}

describe('a manual retry while the previous run is still closing', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;
  let stack: DeliveryStack;
  let receiver: WebhookReceiver;
  let api: TestServer;
  const firstRunClosing = createGate();

  before(async () => {
    temporal = await startDevServer();
    receiver = await startWebhookReceiver();
    stack = await startDeliveryStack(temporal, { wrapActivities: holdLastAttemptOfFirstRun(firstRunClosing.opened) });
    api = await startTestServer({ env: localWebhookEnv(stack.webhooks) });
  });
  after(async () => {
    firstRunClosing.open();
    await api?.close();
    await stack?.stop();
    await receiver?.close();
    await temporal?.teardown();
  });

  it('always starts a new run, which delivers the event (workflow webhook-delivery-<id>-g1)', async () => {
    const tenant = await createTestTenant();
    await configureReceiver(stack.webhooks, tenant.organization.id, receiver.url);
    receiver.respondWith(() => ({ status: 500 }));
    const eventId = await raiseEvent(tenant.organization.id);
    const failed = await waitFor(async () => (await deliveryOfEvent(eventId))?.status === 'Failed', {
      timeoutMs: 20_000,
      what: 'the first run to record its final failure',
    }).then(() => deliveryOfEvent(eventId));
    const deliveryId = failed!.id;

    receiver.respondWith(() => ({ status: 200 }));
    const res = await fetch(`${api.baseUrl}/v1/webhooks/deliveries/${deliveryId}/retry`, {
      method: 'POST',
      headers: tenant.headers,
    });
    expect(res.status).to.equal(202);
    await waitFor(async () => (await deliveryOfEvent(eventId))?.workflow_started_at, {
      timeoutMs: 20_000,
      what: 'the consumer to start the retried delivery',
    });
    const firstRun = stack.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(
      workflowIds.webhookDelivery(deliveryId),
    );
    expect((await firstRun.describe()).status.name).to.equal('RUNNING'); // the race really happened
    firstRunClosing.open();

    const delivered = await waitFor(
      async () => {
        const row = await deliveryOfEvent(eventId);
        return row?.status === 'Succeeded' && row;
      },
      { timeoutMs: 20_000, what: 'the retried delivery to succeed' },
    );
    expect([delivered.generation, delivered.attempt_count]).to.deep.equal([1, 2]);
    expect(receiver.requests.filter((r) => r.deliveryId === deliveryId)).to.have.length(2);
    const retryRun = stack.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(
      workflowIds.webhookDelivery(deliveryId, 1),
    );
    expect((await retryRun.result()).deliveryStatus).to.equal('Succeeded');
    expect((await firstRun.result()).deliveryStatus).to.equal('Failed');
  });

  it('keeps every run of a delivery findable by the first run id as a prefix', async () => {
    const runs = await waitFor(
      async () => {
        const found: string[] = [];
        const query = `WorkflowId STARTS_WITH "webhook-delivery-" AND TaskQueue = "${stack.taskQueue}"`;
        for await (const run of stack.client.workflow.list({ query })) found.push(run.workflowId);
        return found.length >= 2 && found;
      },
      { timeoutMs: 20_000, what: 'visibility to list both runs' },
    );
    expect(runs.some((id) => id.endsWith('-g1'))).to.equal(true);
  });
});
