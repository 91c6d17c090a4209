import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createWebhookDeliveryActivities, type DeliverAttemptInput } from '../../activities/webhook-delivery';
import { createSecretBox } from '../../core/platform/secret-box';
import { attemptsAhead } from '../../core/webhooks/receiver-queue';
import { createReceiverSlots, MIN_BUSY_WAIT_MS } from '../../core/webhooks/receiver-slots';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, deliveryOfEvent, dispatchAll, localWebhookConfig, raiseEvent } from '../support/webhooks';

/**
 * A busy attempt's wait is its place in its receiver's queue, counted in PostgreSQL so that every webhooks worker
 * process sees the same queue. Each process once counted the busy answers it had given itself, and so counted the
 * waiters another process had served since: with two processes, a burst's waits grew to their 10-minute cap while the
 * receiver sat idle (docs/operators/performance.md).
 */
describe('a receiver’s queue, the same for every webhooks worker process', function () {
  this.timeout(60_000);
  const webhooks = localWebhookConfig();
  let receiver: WebhookReceiver;

  before(async () => (receiver = await startWebhookReceiver()));
  after(() => receiver?.close());

  /** An organisation with `count` deliveries whose runs started a second apart, oldest first. */
  async function queueOf(count: number) {
    const tenant = await createTestTenant();
    const organizationId = tenant.organization.id;
    await configureReceiver(webhooks, organizationId, receiver.url);
    const eventIds: string[] = [];
    for (let i = 0; i < count; i++) eventIds.push(await raiseEvent(organizationId));
    await dispatchAll();
    const ids: string[] = [];
    for (const [i, eventId] of eventIds.entries()) {
      const { id } = (await deliveryOfEvent(eventId))!;
      await update(id, {
        workflow_started_at: testDb().raw(`now() - interval '1 minute' + ? * interval '1 second'`, [i]),
      });
      ids.push(id);
    }
    return { organizationId, ids };
  }

  const update = (id: string, values: Record<string, unknown>) =>
    testDb()('webhook_deliveries').where({ id }).update(values);

  it('counts the first attempts of runs started before, and the retries due before, of its organisation only', async () => {
    const { organizationId, ids } = await queueOf(6);
    const ahead = (id: string, organization = organizationId) => attemptsAhead(testDb(), organization, id);
    expect(await ahead(ids[0]!), 'the oldest run is first').to.equal(0);
    expect(await ahead(ids[5]!)).to.equal(5);

    await update(ids[1]!, { status: 'Succeeded', attempt_count: 1 }); // delivered: no longer waiting
    await update(ids[2]!, { attempt_count: 1, next_attempt_at: testDb().raw(`now() + interval '1 hour'`) }); // not due
    await update(ids[3]!, { attempt_count: 1, next_attempt_at: testDb().raw(`now() - interval '2 minutes'`) }); // due
    await update(ids[4]!, {
      workflow_started_at: null,
      start_claimed_until: testDb().raw(`now() + interval '30 seconds'`),
    }); // claimed, its run not asking yet
    expect(await ahead(ids[5]!), 'the first run, and the retry due before it').to.equal(2);
    expect(await ahead(ids[3]!), 'a retry due before every run started is first').to.equal(0);

    const other = await queueOf(3);
    expect(await ahead(ids[5]!), 'another organisation’s deliveries are another queue').to.equal(2);
    expect(await ahead(other.ids[2]!, other.organizationId)).to.equal(2);
    expect(await ahead(ids[5]!, other.organizationId), 'a delivery is looked up in its own organisation only').to.equal(
      0,
    );
    expect(await ahead(randomUUID()), 'a delivery that is gone').to.equal(0);
  });

  it('counts ahead of a delivery that is not bulk work only its organisation’s others that are not', async () => {
    const { organizationId, ids } = await queueOf(5);
    const ahead = (id: string) => attemptsAhead(testDb(), organizationId, id);
    // A placement's three runs started first (bulk work), then the tenant's own API debt's, then another bulk one.
    for (const id of [ids[0]!, ids[1]!, ids[2]!, ids[4]!]) await update(id, { bulk: true });
    await update(ids[1]!, { attempt_count: 1, next_attempt_at: testDb().raw(`now() - interval '2 minutes'`) }); // due
    expect(await ahead(ids[3]!), 'the placement’s first attempts and retry are not ahead of it').to.equal(0);
    expect(await ahead(ids[4]!), 'a bulk delivery waits behind everything before it').to.equal(4);
    await update(ids[0]!, { bulk: false });
    expect(await ahead(ids[3]!), 'one of its organisation’s own before it').to.equal(1);
  });

  it('answers a busy attempt in one process by the queue another process has served since', async () => {
    const { organizationId, ids } = await queueOf(6);
    const firstHeld = createGate();
    receiver.respondWith((request) =>
      request.deliveryId === ids[0] ? firstHeld.opened.then(() => ({ status: 200 })) : { status: 200 },
    );
    // Two worker processes, one slot each for the receiver; a clock that stands still keeps each one's pace at its
    // first estimate (1 s an attempt), so each wait is exactly the attempts ahead × 1 s.
    const worker = () =>
      createWebhookDeliveryActivities({
        db: testDb(),
        webhooks,
        secretBox: createSecretBox(webhooks.secretKeys),
        receiverSlots: createReceiverSlots(1, () => 1_000_000),
      });
    const [processA, processB] = [worker(), worker()];
    const attempt = (deliveryId: string): DeliverAttemptInput => ({
      deliveryId,
      organizationId,
      generation: 0,
      attempt: 1,
      retryDelayMs: 60_000,
    });

    const first = processA.deliverWebhookAttempt(attempt(ids[0]!));
    await waitFor(() => receiver.requests.some((r) => r.deliveryId === ids[0]), {
      what: 'the first attempt to arrive',
    });
    const refused = [];
    for (const id of ids.slice(1)) refused.push(await processA.deliverWebhookAttempt(attempt(id)));
    expect(refused.map((r) => r.outcome)).to.deep.equal(['busy', 'busy', 'busy', 'busy', 'busy']);
    expect(refused.map((r) => r.retryAfterMs)).to.deep.equal([1, 2, 3, 4, 5].map((n) => n * MIN_BUSY_WAIT_MS));

    // The other process has its own slot: it delivers the four waiters after the first.
    for (const id of ids.slice(1, 5)) {
      const sent = await processB.deliverWebhookAttempt(attempt(id));
      expect([sent.outcome, sent.deliveryStatus]).to.deep.equal(['sent', 'Succeeded']);
    }
    const again = await processA.deliverWebhookAttempt(attempt(ids[5]!));
    expect(again.outcome).to.equal('busy');
    expect(again.retryAfterMs, 'only the first attempt, still in flight, is ahead').to.equal(MIN_BUSY_WAIT_MS);

    firstHeld.open();
    expect((await first).deliveryStatus).to.equal('Succeeded');
    const last = await processA.deliverWebhookAttempt(attempt(ids[5]!));
    expect([last.outcome, last.deliveryStatus], 'its slot freed, the last waiter is sent').to.deep.equal([
      'sent',
      'Succeeded',
    ]);
  });
});
