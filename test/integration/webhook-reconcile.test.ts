import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Registry } from 'prom-client';
import { createWebhookReconcileActivities } from '../../activities/webhook-reconcile';
import { createLogger } from '../../core/platform/logger';
import { SCHEDULE_IDS, workflowIds } from '../../core/temporal/names';
import { readReconcilePosition, reconcileDeliveries } from '../../core/webhooks/reconcile';
import { ensureReconcileSchedule } from '../../core/webhooks/reconcile-schedule';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { testDb } from '../support/resources';
import { startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, deliveryOfEvent, dispatchAll, raiseEvent } from '../support/webhooks';
import type { DeliveryRow } from '../../core/webhooks/deliveries';

describe('the webhook delivery reconciler on a Temporal dev server', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;
  let stack: DeliveryStack;
  let receiver: WebhookReceiver;
  const registry = new Registry();
  let scheduledTenant: string | undefined;
  const logger = createLogger({ level: 'silent', name: 'reconcile-test' });

  before(async () => {
    temporal = await startDevServer();
    receiver = await startWebhookReceiver();
    stack = await startDeliveryStack(temporal, {
      relay: false, // nothing but the reconciler starts deliveries here
      // Scheduled passes look at this test's tenant only: the shared test database holds other files' leftovers.
      extraActivities: ({ client, taskQueue }) => ({
        reconcileWebhookDeliveries: () =>
          createWebhookReconcileActivities({
            db: testDb(),
            mode: 'production',
            client,
            taskQueue,
            logger,
            registry,
            graceMs: 0,
            organizationId: scheduledTenant,
          }).reconcileWebhookDeliveries(),
      }),
    });
  });
  after(async () => {
    await stack?.stop();
    await receiver?.close();
    await temporal?.teardown();
  });
  beforeEach(() => receiver.respondWith(() => ({ status: 200 })));

  /** A tenant with a receiver and one delivery made but not started, as a relay that died after its commit leaves it. */
  async function unstartedDelivery() {
    const tenant = await createTestTenant();
    await configureReceiver(stack.webhooks, tenant.organization.id, receiver.url);
    const eventId = await raiseEvent(tenant.organization.id);
    // A transaction still open elsewhere holds the outbox horizon back for a moment: dispatch until the event is taken.
    const row = await waitFor(async () => (await dispatchAll('production'), deliveryOfEvent(eventId)), {
      timeoutMs: 20_000,
      what: 'the event to be dispatched into a delivery',
    });
    expect(row.workflow_started_at).to.equal(null);
    return { organizationId: tenant.organization.id, eventId, deliveryId: row.id };
  }

  const passOptions = (organizationId: string) => ({
    db: testDb(),
    mode: 'production' as const,
    client: stack.client,
    taskQueue: stack.taskQueue,
    graceMs: 0,
    organizationId,
  });
  const reconcileOnce = (organizationId: string) => reconcileDeliveries(passOptions(organizationId));

  function deliveryWhere(eventId: string, what: string, check: (row: DeliveryRow) => boolean) {
    return waitFor(
      async () => {
        const row = await deliveryOfEvent(eventId);
        return row && check(row) && row;
      },
      { timeoutMs: 20_000, what },
    );
  }

  it('starts a Pending delivery that was never started', async () => {
    const { organizationId, eventId, deliveryId } = await unstartedDelivery();
    const report = await reconcileOnce(organizationId);
    expect(report.fixes).to.deep.equal([{ deliveryId, organizationId, reason: 'unstarted' }]);
    const row = await deliveryWhere(eventId, 'the delivery to succeed', (r) => r.status === 'Succeeded');
    expect(row.generation).to.equal(0);
    expect(await reconcileOnce(organizationId)).to.deep.include({ fixes: [] });
  });

  it('starts never-started deliveries only up to their organisation’s room under admission by progress', async () => {
    // A burst's owed deliveries wait in PostgreSQL past the grace period by design; they are not lost.
    const first = await unstartedDelivery();
    const { organizationId } = first;
    const eventIds = [first.eventId];
    for (let i = 0; i < 2; i++) eventIds.push(await raiseEvent(organizationId));
    const rows = await waitFor(
      async () => {
        await dispatchAll('production');
        const made = await Promise.all(eventIds.map(deliveryOfEvent));
        return made.every((row) => row !== undefined) && made;
      },
      { timeoutMs: 20_000, what: 'the three events to be dispatched into deliveries' },
    );
    const held = createGate();
    receiver.respondWith(() => held.opened.then(() => ({ status: 200 }))); // the first attempts stay in flight
    const bounded = () => reconcileDeliveries({ ...passOptions(organizationId), inFlightPerOrganization: 2 });
    try {
      const fixed = (await bounded()).fixes.map((f) => f.deliveryId);
      expect(fixed, 'the two oldest, the room under a bound of 2').to.have.members([rows[0]!.id, rows[1]!.id]);
      expect((await deliveryOfEvent(eventIds[2]!))!.workflow_started_at).to.equal(null);
      expect((await bounded()).fixes, 'no room while both are in flight').to.deep.equal([]);
    } finally {
      held.open();
    }
    for (const eventId of eventIds.slice(0, 2))
      await deliveryWhere(eventId, 'an admitted delivery to succeed', (r) => r.status === 'Succeeded');
    expect((await bounded()).fixes).to.deep.equal([{ deliveryId: rows[2]!.id, organizationId, reason: 'unstarted' }]);
    await deliveryWhere(eventIds[2]!, 'the last delivery to succeed', (r) => r.status === 'Succeeded');
  });

  it('restarts a Pending delivery whose workflow was terminated, and the delivery completes', async () => {
    const { organizationId, eventId, deliveryId } = await unstartedDelivery();
    receiver.respondWith(() => ({ status: 503 }));
    await reconcileOnce(organizationId);
    await deliveryWhere(eventId, 'attempt 1 to fail', (r) => r.attempt_count === 1 && r.status === 'Pending');
    await stack.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId)).terminate('test: lost run');
    receiver.respondWith(() => ({ status: 200 }));
    // Not overdue until its retry (a minute away) is late: the reconciler leaves it alone until then.
    expect(await reconcileOnce(organizationId)).to.deep.include({ checked: 0, fixes: [] });
    await testDb()('webhook_deliveries')
      .where({ id: deliveryId })
      .update({ next_attempt_at: testDb().raw(`now() - interval '1 second'`) });

    const report = await reconcileOnce(organizationId);
    expect(report.fixes).to.deep.equal([
      { deliveryId, organizationId, reason: 'workflow_closed', workflowStatus: 'TERMINATED' },
    ]);
    const row = await deliveryWhere(eventId, 'the restarted delivery to succeed', (r) => r.status === 'Succeeded');
    expect([row.generation, row.attempt_count]).to.deep.equal([1, 2]);
  });

  it('restarts a Pending delivery whose run completed without recording its outcome', async () => {
    const { organizationId, eventId, deliveryId } = await unstartedDelivery();
    await reconcileOnce(organizationId);
    await deliveryWhere(eventId, 'the delivery to succeed', (r) => r.status === 'Succeeded');
    await stack.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId)).result();
    await testDb()('webhook_deliveries').where({ id: deliveryId }).update({ status: 'Pending' });

    const report = await reconcileOnce(organizationId);
    expect(report.fixes).to.deep.equal([
      { deliveryId, organizationId, reason: 'workflow_closed', workflowStatus: 'COMPLETED' },
    ]);
    const row = await deliveryWhere(eventId, 'the delivery to succeed again', (r) => r.status === 'Succeeded');
    expect(row.generation).to.equal(1);
  });

  it('looks only at deliveries whose next attempt is overdue, not at those waiting for a later retry', async () => {
    const { organizationId, eventId, deliveryId } = await unstartedDelivery();
    // A run that was started a day ago and is waiting for a retry an hour away; its workflow is gone.
    const setRetry = (at: string) =>
      testDb()('webhook_deliveries')
        .where({ id: deliveryId })
        .update({
          workflow_started_at: testDb().raw(`now() - interval '1 day'`),
          updated_at: testDb().raw(`now() - interval '1 day'`),
          next_attempt_at: testDb().raw(at),
        });
    await setRetry(`now() + interval '1 hour'`);
    expect(await reconcileOnce(organizationId)).to.deep.equal({ checked: 0, fixes: [], complete: true });
    await setRetry(`now() - interval '1 second'`); // the retry is late: now it is the reconciler's business
    const report = await reconcileOnce(organizationId);
    expect(report).to.deep.include({ checked: 1, complete: true });
    expect(report.fixes).to.deep.equal([{ deliveryId, organizationId, reason: 'workflow_missing' }]);
    await deliveryWhere(eventId, 'the restarted delivery to succeed', (r) => r.status === 'Succeeded');
  });

  it('resumes where the last pass stopped when a pass runs out of time, in the order deliveries fell due', async () => {
    const tenant = await createTestTenant();
    const organizationId = tenant.organization.id;
    await configureReceiver(stack.webhooks, organizationId, receiver.url);
    const eventIds = [
      await raiseEvent(organizationId),
      await raiseEvent(organizationId),
      await raiseEvent(organizationId),
    ];
    const rows = await waitFor(
      async () => {
        await dispatchAll('production');
        const found = await Promise.all(eventIds.map(deliveryOfEvent));
        return found.every(Boolean) && (found as DeliveryRow[]);
      },
      { timeoutMs: 20_000, what: 'the events to be dispatched into deliveries' },
    );
    // Enqueued three, two and one hours ago, in the reverse order of their ids' creation.
    const ids = rows.map((r) => r.id).reverse();
    for (const [i, id] of ids.entries()) {
      await testDb()('webhook_deliveries')
        .where({ id })
        .update({ updated_at: testDb().raw(`now() - make_interval(hours => ?)`, [3 - i]) });
    }
    const onePage = () => reconcileDeliveries({ ...passOptions(organizationId), pageSize: 1, budgetMs: 0 });
    for (const id of ids) {
      const report = await onePage();
      expect(report).to.deep.include({ checked: 1, complete: false });
      expect(report.fixes.map((f) => f.deliveryId)).to.deep.equal([id]);
      expect((await readReconcilePosition(testDb(), passOptions(organizationId)))?.deliveryId).to.equal(id);
    }
    // Everything started: nothing is overdue past the grace period, the pass completes and forgets its position.
    const last = await reconcileDeliveries({ ...passOptions(organizationId), graceMs: 60_000 });
    expect(last).to.deep.equal({ checked: 0, fixes: [], complete: true });
    expect(await readReconcilePosition(testDb(), passOptions(organizationId))).to.equal(undefined);
    for (const eventId of eventIds) {
      await deliveryWhere(eventId, 'each delivery to succeed', (r) => r.status === 'Succeeded');
    }
  });

  it('runs on a Schedule created idempotently, and counts what it fixed', async () => {
    const { eventId, organizationId } = await unstartedDelivery();
    scheduledTenant = organizationId;
    expect(await ensureReconcileSchedule(stack.client, stack.taskQueue)).to.equal(true);
    expect(await ensureReconcileSchedule(stack.client, stack.taskQueue)).to.equal(false);
    const schedule = stack.client.schedule.getHandle(SCHEDULE_IDS.webhookReconcile);
    await schedule.trigger();
    await deliveryWhere(eventId, 'the scheduled pass to start the delivery', (r) => r.status === 'Succeeded');
    // The pass counts once it has gone through every delivery it found, which can be after this one has succeeded.
    await waitFor(
      async () =>
        /client_api_webhook_deliveries_reconciled_total\{mode="production",reason="unstarted"\} [1-9]/.test(
          await registry.getSingleMetricAsString('client_api_webhook_deliveries_reconciled_total'),
        ),
      { what: 'the scheduled pass to count the delivery it started' },
    );
    await schedule.delete();
  });
});
