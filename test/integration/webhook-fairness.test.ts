import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ATTEMPT_TIMEOUT_MS } from '../../core/webhooks/http-sender';
import {
  RECEIVER_CONCURRENCY,
  WEBHOOKS_ACTIVITY_SLOTS,
  WEBHOOKS_LOCAL_ACTIVITY_SLOTS,
  WEBHOOKS_WORKFLOW_TASK_SLOTS,
} from '../../core/webhooks/receiver-slots';
import { workflowIds } from '../../core/temporal/names';
import { DELIVERIES_IN_FLIGHT_PER_ORGANIZATION } from '../../core/webhooks/delivery-consumer';
import { testDb } from '../support/resources';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, raiseEvent } from '../support/webhooks';

/**
 * More than the SDK's default 100 activity slots, than the worker's workflow task slots and than the deliveries one
 * organisation may have between start and first attempt: without the caps, one tenant could take every one.
 */
const TARPIT_EVENTS = 130;
/** The other tenant's events while the tarpit's burst is dispatched, then as many once every tarpit run waits. */
const OTHER_TENANT_EVENTS = 4;
/** The bound: every one of the other tenant's deliveries, from its event's commit to its receipt. */
const ARRIVAL_BOUND_MS = 1_000;

describe('fairness: a receiver that hangs does not slow other tenants', function () {
  this.timeout(180_000);
  let temporal: TestWorkflowEnvironment;
  let stack: DeliveryStack;
  let tarpit: WebhookReceiver;
  let healthy: WebhookReceiver;
  const released = createGate();

  before(async () => {
    temporal = await startDevServer();
    tarpit = await startWebhookReceiver();
    tarpit.respondWith(() => released.opened.then(() => ({ status: 200 }))); // accepts, never answers in time
    healthy = await startWebhookReceiver();
    stack = await startDeliveryStack(temporal, {
      worker: {
        // as workers/webhooks.ts
        maxConcurrentActivityTaskExecutions: WEBHOOKS_ACTIVITY_SLOTS,
        maxConcurrentLocalActivityExecutions: WEBHOOKS_LOCAL_ACTIVITY_SLOTS,
        maxConcurrentWorkflowTaskExecutions: WEBHOOKS_WORKFLOW_TASK_SLOTS,
      },
    });
  });
  after(async () => {
    released.open();
    await tarpit?.close();
    await healthy?.close();
    await stack?.stop();
    await temporal?.teardown();
  });

  it("delivers another tenant's events in under a second while one tenant's receiver times out on many", async () => {
    const hanging = await createTestTenant();
    await configureReceiver(stack.webhooks, hanging.organization.id, tarpit.url);
    const other = await createTestTenant();
    await configureReceiver(stack.webhooks, other.organization.id, healthy.url);

    for (let i = 0; i < TARPIT_EVENTS; i++) await raiseEvent(hanging.organization.id);
    // During the burst: the tarpit's runs are being started and their first attempts dispatched.
    const latencies: number[] = [];
    for (let i = 0; i < OTHER_TENANT_EVENTS; i++)
      latencies.push(await deliverFor(other.organization.id, `event ${i + 1} during the burst`));
    // The steady state: the tarpit's deliveries between start and first attempt at their bound (admission by
    // progress, core/webhooks/delivery-consumer.ts), the receiver holding its share of them, the rest still owed.
    const startedUntried = async () => {
      const [row] = await testDb()('webhook_deliveries')
        .where({ organization_id: hanging.organization.id, attempt_count: 0 })
        .whereNotNull('workflow_started_at')
        .count({ n: '*' });
      return Number(row!.n);
    };
    await waitFor(
      async () =>
        (await startedUntried()) >= DELIVERIES_IN_FLIGHT_PER_ORGANIZATION &&
        tarpit.requests.length >= RECEIVER_CONCURRENCY,
      {
        timeoutMs: 60_000,
        what: "the tarpit's deliveries in flight to reach their bound and the tarpit to hold attempts",
      },
    );
    expect(await startedUntried(), 'no more of its deliveries started than the bound').to.equal(
      DELIVERIES_IN_FLIGHT_PER_ORGANIZATION,
    );
    for (let i = 0; i < OTHER_TENANT_EVENTS; i++)
      latencies.push(await deliverFor(other.organization.id, `event ${i + 1} behind the tarpit`));
    // The tarpit's runs are one tenant in the task queues' fair dispatch (core/temporal/fairness.ts); a started one,
    // as the rest are still owed.
    const tarpitDelivery = await testDb()('webhook_deliveries')
      .where({ organization_id: hanging.organization.id })
      .whereNotNull('workflow_started_at')
      .first<{ id: string; generation: number }>('id', 'generation');
    const description = await stack.client.workflow
      .getHandle(workflowIds.webhookDelivery(tarpitDelivery.id, tarpitDelivery.generation))
      .describe();
    expect(description.priority?.fairnessKey).to.equal(hanging.organization.id);
    expect(
      latencies.filter((ms) => ms >= ARRIVAL_BOUND_MS),
      `latencies ${latencies.join(', ')} ms`,
    ).to.deep.equal([]);
    // Each tarpit attempt hangs for the 10 s timeout, so those that arrived in the last 10 s are still held open.
    const heldOpen = tarpit.requests.filter((r) => r.receivedAt > Date.now() - ATTEMPT_TIMEOUT_MS).length;
    expect(heldOpen, 'tarpit attempts held open').to.be.at.most(2 * RECEIVER_CONCURRENCY);
  });

  /** Raises an event and resolves to the milliseconds it took to reach the healthy receiver. */
  async function deliverFor(organizationId: string, what: string): Promise<number> {
    const raisedAt = Date.now();
    const eventId = await raiseEvent(organizationId);
    const arrived = await waitFor(() => healthy.requests.find((r) => r.body.id === eventId), {
      timeoutMs: 30_000,
      what: `the other tenant's ${what} to arrive`,
    });
    return arrived.receivedAt - raisedAt;
  }
});
