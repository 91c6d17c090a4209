import { expect } from 'chai';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { WebhookConfig } from '../../core/platform/config';
import { SEARCH_ATTRIBUTE_KEYS } from '../../core/temporal/names';
import { ATTEMPT_ACTIVITY_RETRY } from '../../workflows/webhook-delivery';
import { attemptMarkers, newDelivery, runDeliveryWorker, startDelivery } from '../support/delivery-runs';
import { startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { attemptsOf, deliveryOfEvent, localWebhookConfig } from '../support/webhooks';

const DELIVERY_STATUS = SEARCH_ATTRIBUTE_KEYS.deliveryStatus;

/**
 * The attempt activity fails as if the database were down while `down(attemptOfActivity)` holds. The failure is a
 * plain retryable one, marked benign only so the worker logs it at debug rather than print twenty stack traces.
 */
function databaseDownWhile(down: (activityAttempt: number) => boolean, calls: { count: number }) {
  return (real: WebhookDeliveryActivities): WebhookDeliveryActivities => ({
    ...real,
    async deliverWebhookAttempt(input) {
      calls.count++;
      if (down(Context.current().info.attempt)) {
        const category = ApplicationFailureCategory.BENIGN;
        throw ApplicationFailure.create({ message: 'connect ECONNREFUSED 127.0.0.1:5432', category });
      }
      return real.deliverWebhookAttempt(input);
    },
  });
}

describe('webhookDeliveryWorkflow when its activity fails (bounded retries, time-skipping server)', function () {
  this.timeout(240_000); // the first test to need the workflow bundle also builds it, slowly on a slow machine
  let env: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;
  let taskQueue: string;
  const webhooks: WebhookConfig = localWebhookConfig();

  before(async () => {
    env = await startTimeSkipping();
    receiver = await startWebhookReceiver();
    receiver.respondWith(() => ({ status: 200 }));
  });
  // A task queue per test: a worker a timed-out test leaves running cannot make the SDK refuse the next test's worker.
  beforeEach(() => {
    taskQueue = uniqueTaskQueue('webhook-delivery-faults');
  });
  after(async () => {
    await receiver?.close();
    await env?.teardown();
  });

  it('rides out a database outage of a few minutes: the attempt succeeds once the database is back', async () => {
    const { ref, eventId } = await newDelivery(webhooks, receiver.url);
    const calls = { count: 0 };
    const handle = await startDelivery(env, taskQueue, ref);
    const result = await runDeliveryWorker(
      env,
      taskQueue,
      webhooks,
      handle.result(),
      databaseDownWhile((attempt) => attempt < 10, calls), // 1+2+4+…+60 s: about 4 minutes down
    );
    expect(result).to.include({ deliveryStatus: 'Succeeded', attempts: 1 });
    expect(calls.count).to.equal(10);
    const markers = attemptMarkers(await handle.fetchHistory());
    expect(markers.map((m) => [m.attempt, Boolean(m.failure)])).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => [i + 1, i < 9]),
    );
    expect(markers.at(-1)!.at - markers[0]!.at).to.be.at.least(3 * 60_000); // each back-off a durable timer
    expect((await deliveryOfEvent(eventId))!.status).to.equal('Succeeded');
  });

  it('gives up after the policy’s last attempt and records the delivery Failed (never left Pending)', async () => {
    const { ref, eventId } = await newDelivery(webhooks, receiver.url);
    const calls = { count: 0 };
    const handle = await startDelivery(env, taskQueue, ref);
    const result = await runDeliveryWorker(
      env,
      taskQueue,
      webhooks,
      handle.result(),
      databaseDownWhile(() => true, calls),
    );
    expect(result).to.deep.equal({ deliveryStatus: 'Failed', attempts: 0, lastHttpStatus: null, nextAttemptAt: null });
    expect(calls.count).to.equal(ATTEMPT_ACTIVITY_RETRY.maximumAttempts).and.to.equal(20);
    const markers = attemptMarkers(await handle.fetchHistory());
    expect(markers).to.have.length(20);
    expect(
      markers.every((m) => m.failure),
      'every try failed',
    ).to.equal(true);
    expect(markers.map((m) => m.retried).lastIndexOf(true), 'the policy gave up after the 20th').to.equal(18);
    const row = (await deliveryOfEvent(eventId))!;
    expect([row.status, row.next_attempt_at, row.attempt_count]).to.deep.equal(['Failed', null, 0]);
    expect(await attemptsOf(ref.deliveryId)).to.deep.equal([]);
    expect((await handle.describe()).typedSearchAttributes.get(DELIVERY_STATUS)).to.equal('Failed');
  });

  it('does not retry an input that can never succeed, and ends the run Failed', async () => {
    const { ref, eventId } = await newDelivery(webhooks, receiver.url);
    const calls = { count: 0 };
    const broken = { ...ref, generation: -1 }; // no attempt could ever accept it
    const handle = await startDelivery(env, taskQueue, broken);
    const result = await runDeliveryWorker(
      env,
      taskQueue,
      webhooks,
      handle.result(),
      databaseDownWhile(() => false, calls),
    );
    expect(result.deliveryStatus).to.equal('Failed');
    expect(calls.count).to.equal(1);
    const markers = attemptMarkers(await handle.fetchHistory());
    expect(markers.map((m) => [m.retried, m.failure?.applicationFailureInfo?.type])).to.deep.equal([
      [false, 'InvalidDeliveryInput'],
    ]);
    expect((await deliveryOfEvent(eventId))!.status).to.equal('Pending'); // another generation's row: untouched
  });
});
