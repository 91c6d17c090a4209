import { expect } from 'chai';
import { tsToMs } from '@temporalio/common/lib/time';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { WebhookConfig } from '../../core/platform/config';
import { createSecretBox } from '../../core/platform/secret-box';
import { SEARCH_ATTRIBUTE_KEYS, workflowIds } from '../../core/temporal/names';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import type { DeliveryRef } from '../../core/webhooks/dispatch';
import { retryDelivery } from '../../core/webhooks/deliveries';
import { clearWebhookConfig, rotateWebhookSecret } from '../../core/webhooks/receiver-config';
import {
  webhookDeliveryRetryNowSignal,
  webhookDeliveryStatusQuery,
  webhookDeliveryWorkflow,
} from '../../workflows/webhook-delivery';
import { attemptMarkers, newDelivery as newDeliveryFor, startDelivery } from '../support/delivery-runs';
import { testDb } from '../support/resources';
import { waitFor } from '../support/wait';
import { bundleWorkflows, startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';
import {
  DEBTOR_EMAIL,
  DEBTOR_PHONE,
  attemptsOf,
  deliveryOfEvent,
  dispatchAll,
  isConsumed,
  historyBytes,
  localWebhookConfig,
  raiseEvent,
} from '../support/webhooks';

const MINUTE = 60_000;
/** Workflow-time offsets of attempts 1 to 7 from the workflow's start (spec §6, DECISIONS §4). */
const EXPECTED_OFFSETS = [0, 1, 6, 36, 2 * 60 + 36, 14 * 60 + 36, 38 * 60 + 36].map((m) => m * MINUTE);
const {
  deliveryStatus: DELIVERY_STATUS,
  organizationId: ORGANIZATION_ID,
  eventType: EVENT_TYPE,
  requestId: REQUEST_ID,
} = SEARCH_ATTRIBUTE_KEYS;

describe('webhookDeliveryWorkflow on the time-skipping server (real durations)', function () {
  this.timeout(240_000); // the first test to need the workflow bundle also builds it, slowly on a slow machine
  let env: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;
  let taskQueue: string;
  const webhooks: WebhookConfig = localWebhookConfig();
  const secretBox = createSecretBox(webhooks.secretKeys);

  /** The worker a test left running (it failed or timed out mid-run): stopped before the next test starts. */
  let running: Worker | undefined;

  before(async () => {
    env = await startTimeSkipping();
    receiver = await startWebhookReceiver();
  });
  // A task queue per test: a worker that one test leaves behind never blocks the next test's worker (the SDK refuses
  // two workers on one task queue in a process), so a failure stays that test's own instead of failing every later one.
  beforeEach(() => {
    taskQueue = uniqueTaskQueue('webhook-delivery');
  });
  afterEach(() => {
    if (running?.getState() === 'RUNNING') running.shutdown();
    running = undefined;
  });
  after(async () => {
    await receiver?.close();
    await env?.teardown();
  });

  /** A tenant with a receiver, one event, and its delivery row (as the relay makes them). */
  const newDelivery = () => newDeliveryFor(webhooks, receiver.url);

  /** A Worker runs once: each test gets its own, on the suite's task queue (the bundle is built once). */
  const worker = {
    async runUntil<T>(work: Promise<T>): Promise<T> {
      const w = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/webhooks')),
        activities: createWebhookDeliveryActivities({ db: testDb(), webhooks, secretBox }),
      });
      running = w;
      return w.runUntil(work);
    },
  };

  const start = (ref: DeliveryRef) => startDelivery(env, taskQueue, ref);

  const requestsFor = (deliveryId: string) => receiver.requests.filter((r) => r.deliveryId === deliveryId);

  it('an always-failing receiver gets exactly 7 attempts at 0, 1m, 6m, 36m, 2h36m, 14h36m, 38h36m, then Failed', async () => {
    const { ref, secret, eventId } = await newDelivery();
    receiver.respondWith((r) => (r.deliveryId === ref.deliveryId ? { status: 500, body: 'boom' } : { status: 200 }));
    const handle = await start(ref);
    const result = await worker.runUntil(handle.result());

    expect(result).to.deep.equal({ deliveryStatus: 'Failed', attempts: 7, lastHttpStatus: 500, nextAttemptAt: null });
    const received = requestsFor(ref.deliveryId);
    expect(received).to.have.length(7);
    for (const r of received) {
      expect(r.body.id).to.equal(eventId);
      expect(verifySignature(r.signature, r.rawBody, secret)).to.include({ ok: true });
    }
    const history = await handle.fetchHistory();
    const startedAt = tsToMs(history.events![0]!.eventTime);
    const offsets = attemptMarkers(history).map((m) => m.at - startedAt);
    expect(offsets).to.have.length(7);
    offsets.forEach((offset, i) => expect(offset, `attempt ${i + 1}`).to.be.closeTo(EXPECTED_OFFSETS[i]!, 5_000));
    const timers = history.events!.flatMap((e) =>
      e.timerStartedEventAttributes ? [e.timerStartedEventAttributes] : [],
    );
    expect(timers.map((t) => tsToMs(t.startToFireTimeout))).to.deep.equal(
      [1, 5, 30, 120, 720, 1440].map((m) => m * MINUTE),
    );

    const row = (await deliveryOfEvent(eventId))!;
    expect([row.status, row.attempt_count, row.next_attempt_at]).to.deep.equal(['Failed', 7, null]);
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => [a.number, a.http_status, a.succeeded, a.error, a.response_body])).to.deep.equal(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500, false, 'HTTP 500', 'boom']),
    );
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.get(DELIVERY_STATUS)).to.equal('Failed');
    expect(typedSearchAttributes.get(ORGANIZATION_ID)).to.equal(ref.organizationId);
    expect(typedSearchAttributes.get(EVENT_TYPE)).to.equal('debt.created');
  });

  it('a receiver that succeeds on attempt 3 ends Succeeded after 3 attempts (status query and search attribute agree)', async () => {
    const { ref, eventId } = await newDelivery();
    receiver.respondWith((r) => {
      if (r.deliveryId !== ref.deliveryId) return { status: 200 };
      return requestsFor(ref.deliveryId).length < 3 ? { status: 503 } : { status: 204 };
    });
    const handle = await start(ref);
    // One worker for the run and the query after it: a worker created on the same task queue the moment the first
    // one returns can find it still registered.
    const [result, queried] = await worker.runUntil(
      handle.result().then(async (ended) => [ended, await handle.query(webhookDeliveryStatusQuery)] as const),
    );
    expect(result).to.deep.equal({
      deliveryStatus: 'Succeeded',
      attempts: 3,
      lastHttpStatus: 204,
      nextAttemptAt: null,
    });
    expect(queried).to.deep.equal(result);
    expect(requestsFor(ref.deliveryId)).to.have.length(3);
    const row = (await deliveryOfEvent(eventId))!;
    expect([row.status, row.attempt_count]).to.deep.equal(['Succeeded', 3]);
    expect((await attemptsOf(ref.deliveryId)).map((a) => a.http_status)).to.deep.equal([503, 503, 204]);
    expect((await handle.describe()).typedSearchAttributes.get(DELIVERY_STATUS)).to.equal('Succeeded');
  });

  /**
   * The search attribute upserts the workflow code makes, in order (not the SDK's own `TemporalChangeVersion`, which
   * `patched` upserts with its marker).
   */
  const upsertsIn = async (handle: WorkflowHandle) =>
    ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
      const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
      const ours = Object.keys(fields).filter((key) => key !== 'TemporalChangeVersion');
      return ours.length > 0 ? [ours] : [];
    });

  it('a run is found by organisation, event type, status and request from its start, before any worker runs it', async () => {
    const { ref } = await newDelivery();
    const requestId = `req_${ref.deliveryId.replace(/-/g, '')}`;
    const handle = await start({ ...ref, requestId });
    const waiting = (await handle.describe()).typedSearchAttributes; // no worker yet: a run waiting in a backlog
    expect(waiting.get(ORGANIZATION_ID)).to.equal(ref.organizationId);
    expect(waiting.get(EVENT_TYPE)).to.equal('debt.created');
    expect(waiting.get(DELIVERY_STATUS)).to.equal('Pending');
    expect(waiting.get(REQUEST_ID)).to.equal(requestId);
    expect((await worker.runUntil(handle.result())).deliveryStatus).to.equal('Succeeded');
    expect((await handle.describe()).typedSearchAttributes.get(DELIVERY_STATUS)).to.equal('Succeeded');
    expect(await upsertsIn(handle), 'only the final status is upserted').to.have.length(1);
  });

  it('a run started without search attributes (by an older starter, or by hand) sets them itself', async () => {
    const { ref } = await newDelivery();
    const { requestId: _, ...input } = ref;
    const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
      taskQueue,
      workflowId: workflowIds.webhookDelivery(ref.deliveryId),
      args: [input],
    });
    expect((await worker.runUntil(handle.result())).deliveryStatus).to.equal('Succeeded');
    const found = (await handle.describe()).typedSearchAttributes;
    expect([found.get(ORGANIZATION_ID), found.get(EVENT_TYPE), found.get(DELIVERY_STATUS)]).to.deep.equal([
      ref.organizationId,
      'debt.created',
      'Succeeded',
    ]);
    expect(await upsertsIn(handle), 'the attributes at the first task, then the final status').to.have.length(2);
  });

  it('a manual retry of a Failed delivery runs the schedule again under the same id, numbering attempts on from 8', async () => {
    const { ref, tenant } = await newDelivery();
    receiver.respondWith((r) => {
      if (r.deliveryId !== ref.deliveryId) return { status: 200 };
      return requestsFor(ref.deliveryId).length <= 7 ? { status: 500 } : { status: 200 };
    });
    expect((await worker.runUntil(start(ref).then((h) => h.result()))).deliveryStatus).to.equal('Failed');
    const retried = await testDb().transaction((trx) => retryDelivery(trx, tenant.organization.id, ref.deliveryId));
    expect(retried.status).to.equal('Pending');
    const handle = await start({ ...ref, generation: 1 }); // what the relay starts: a new run (`-g1`), the same delivery
    expect((await worker.runUntil(handle.result())).deliveryStatus).to.equal('Succeeded');
    expect((await attemptsOf(ref.deliveryId)).map((a) => [a.number, a.http_status])).to.deep.equal([
      ...[1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500]),
      [8, 200],
    ]);
    expect(new Set(requestsFor(ref.deliveryId).map((r) => r.deliveryId))).to.deep.equal(new Set([ref.deliveryId]));
  });

  it('a redirect is a failure and is not followed', async () => {
    const { ref } = await newDelivery();
    receiver.respondWith((r) => {
      if (r.deliveryId !== ref.deliveryId) return { status: 200 };
      if (requestsFor(ref.deliveryId).length > 1) return { status: 200 };
      return { status: 302, headers: { location: receiver.url.replace('/hooks', '/moved') } };
    });
    const before = receiver.requests.length;
    const result = await worker.runUntil(start(ref).then((h) => h.result()));
    expect(result.attempts).to.equal(2);
    expect(receiver.requests.slice(before).map((r) => r.deliveryId)).to.deep.equal([ref.deliveryId, ref.deliveryId]);
    expect((await attemptsOf(ref.deliveryId)).map((a) => a.http_status)).to.deep.equal([302, 200]);
  });

  it('after a rotation the next attempt is signed with the new secret only', async () => {
    const { ref, secret: oldSecret, tenant } = await newDelivery();
    let newSecret = '';
    receiver.respondWith(async (r) => {
      if (r.deliveryId !== ref.deliveryId) return { status: 200 };
      if (requestsFor(ref.deliveryId).length > 1) return { status: 200 };
      const rotated = await testDb().transaction((trx) => rotateWebhookSecret(trx, secretBox, tenant.organization.id));
      newSecret = rotated.newSecret!;
      return { status: 500 };
    });
    const handle = await start(ref);
    expect((await worker.runUntil(handle.result())).deliveryStatus).to.equal('Succeeded');
    const [first, second] = requestsFor(ref.deliveryId);
    expect(verifySignature(first!.signature, first!.rawBody, oldSecret).ok).to.equal(true);
    expect(verifySignature(second!.signature, second!.rawBody, newSecret).ok).to.equal(true);
    expect(verifySignature(second!.signature, second!.rawBody, oldSecret).ok).to.equal(false);
    const history = await historyBytes(handle);
    for (const secret of [oldSecret, newSecret]) expect(history).not.to.contain(secret.slice(6));
  });

  it('after a clear the delivery continues to the snapshotted URL and secret, and new events enqueue nothing', async () => {
    const { ref, secret, tenant } = await newDelivery();
    receiver.respondWith(async (r) => {
      if (r.deliveryId !== ref.deliveryId) return { status: 200 };
      if (requestsFor(ref.deliveryId).length > 1) return { status: 200 };
      await testDb().transaction((trx) => clearWebhookConfig(trx, tenant.organization.id));
      return { status: 500 };
    });
    const handle = await start(ref);
    expect((await worker.runUntil(handle.result())).deliveryStatus).to.equal('Succeeded');
    const [, second] = requestsFor(ref.deliveryId);
    expect(verifySignature(second!.signature, second!.rawBody, secret).ok).to.equal(true);

    const laterEvent = await raiseEvent(tenant.organization.id);
    await dispatchAll();
    expect(await deliveryOfEvent(laterEvent)).to.equal(undefined);
    expect(await isConsumed(WEBHOOK_DELIVERY_CONSUMER, 'production', laterEvent)).to.equal(true);
  });

  it('histories carry neither the signing secret nor the debtor’s email or phone', async () => {
    const { ref, secret } = await newDelivery();
    receiver.respondWith(() => ({ status: 200 }));
    const handle = await start(ref);
    await worker.runUntil(handle.result());
    const history = await historyBytes(handle);
    expect(history).to.contain(ref.deliveryId); // the check reads the payloads
    for (const needle of [secret, secret.slice(6), DEBTOR_EMAIL, DEBTOR_PHONE, receiver.url]) {
      expect(history).not.to.contain(needle);
    }
  });

  it('a second run of a finished delivery sends nothing (starting twice is harmless)', async () => {
    const { ref } = await newDelivery();
    receiver.respondWith(() => ({ status: 200 }));
    const first = await worker.runUntil(start(ref).then((h) => h.result()));
    const second = await worker.runUntil(start(ref).then((h) => h.result()));
    expect(first.deliveryStatus).to.equal('Succeeded');
    expect(second).to.deep.equal({
      deliveryStatus: 'Succeeded',
      attempts: 0,
      lastHttpStatus: null,
      nextAttemptAt: null,
    });
    expect(requestsFor(ref.deliveryId)).to.have.length(1);
  });

  it('Retry now while waiting sends the next attempt at once, and the schedule goes on from there', async () => {
    const { ref } = await newDelivery();
    receiver.respondWith((r) =>
      r.deliveryId === ref.deliveryId && requestsFor(ref.deliveryId).length < 3 ? { status: 500 } : { status: 204 },
    );
    const handle = await start(ref);
    const result = await worker.runUntil(
      (async () => {
        // Queries do not let the time-skipping server skip: the run is caught in its first wait (1 minute).
        await waitFor(async () => (await handle.query(webhookDeliveryStatusQuery)).nextAttemptAt !== null, {
          what: 'the run to wait after its first failed attempt',
        });
        await handle.signal(webhookDeliveryRetryNowSignal);
        return handle.result();
      })(),
    );
    expect(result).to.deep.equal({
      deliveryStatus: 'Succeeded',
      attempts: 3,
      lastHttpStatus: 204,
      nextAttemptAt: null,
    });
    const history = await handle.fetchHistory();
    const startedAt = tsToMs(history.events![0]!.eventTime);
    const offsets = attemptMarkers(history).map((m) => m.at - startedAt);
    expect(offsets).to.have.length(3);
    expect(offsets[1], 'attempt 2 sent at once, not after the 1-minute wait').to.be.below(30_000);
    expect(offsets[2]! - offsets[1]!, 'attempt 3 after the 5-minute wait that follows attempt 2').to.be.closeTo(
      5 * MINUTE,
      5_000,
    );
    const timers = history.events!.flatMap((e) =>
      e.timerStartedEventAttributes ? [e.timerStartedEventAttributes] : [],
    );
    expect(timers.map((t) => tsToMs(t.startToFireTimeout))).to.deep.equal([1 * MINUTE, 5 * MINUTE]);
    expect(history.events!.filter((e) => e.timerCanceledEventAttributes)).to.have.length(1);
    expect((await attemptsOf(ref.deliveryId)).map((a) => a.http_status)).to.deep.equal([500, 500, 204]);
  });

  it('Retry now outside a wait is ignored: the run keeps its schedule', async () => {
    const { ref } = await newDelivery();
    receiver.respondWith((r) =>
      r.deliveryId === ref.deliveryId && requestsFor(ref.deliveryId).length < 2 ? { status: 500 } : { status: 204 },
    );
    const handle = await start(ref);
    await handle.signal(webhookDeliveryRetryNowSignal); // before the first attempt: nothing waits yet
    const result = await worker.runUntil(handle.result());
    expect(result).to.include({ deliveryStatus: 'Succeeded', attempts: 2 });
    const history = await handle.fetchHistory();
    const startedAt = tsToMs(history.events![0]!.eventTime);
    const offsets = attemptMarkers(history).map((m) => m.at - startedAt);
    expect(offsets[1], 'attempt 2 after the whole first wait').to.be.closeTo(MINUTE, 5_000);
  });
});
