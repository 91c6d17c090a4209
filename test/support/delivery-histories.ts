/**
 * Records histories of the webhook delivery workflow from real runs on the time-skipping server (real activities, a
 * real receiver, the test database), one per way a run can end, as JSON under test/workflows/histories/. The replay
 * test replays them against the current bundle, so a change that breaks determinism fails the build.
 * Run once, after a deliberate and versioned change to the workflow: `RECORD_HISTORIES=1 npx mocha
 * test/workflows/webhook-delivery-replay.test.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import type { WebhookConfig } from '../../core/platform/config';
import { retryDelivery } from '../../core/webhooks/deliveries';
import type { DeliveryRef } from '../../core/webhooks/dispatch';
import { newDelivery, runDeliveryWorker, startDelivery } from './delivery-runs';
import { historyToJson } from './history-json';
import { testDb } from './resources';
import { waitFor } from './wait';
import { webhookDeliveryRetryNowSignal, webhookDeliveryStatusQuery } from '../../workflows/webhook-delivery';
import { uniqueTaskQueue } from './temporal';
import type { Responder, WebhookReceiver } from './webhook-receiver';

export const HISTORIES_DIR = join(__dirname, '..', 'workflows', 'histories');

/** The file names (without .json) every recording writes: each final state of a run at least once. */
export const RECORDED_SCENARIOS = [
  'succeeded-on-attempt-1',
  'succeeded-after-retries',
  'failed-after-7-attempts',
  'stale-run-of-finished-delivery',
  'gone-delivery-deleted',
  'manual-retry-generation-1',
  'activity-failed-marked-failed',
  'retried-now-while-waiting',
] as const;

type Scenario = (typeof RECORDED_SCENARIOS)[number];

/** The attempt activity as if the database stayed down past the activity's retry policy. */
const databaseDown = (real: WebhookDeliveryActivities): WebhookDeliveryActivities => ({
  ...real,
  deliverWebhookAttempt: () =>
    Promise.reject(
      ApplicationFailure.create({ message: 'connect ECONNREFUSED', category: ApplicationFailureCategory.BENIGN }),
    ),
});

export async function recordDeliveryHistories(
  env: TestWorkflowEnvironment,
  receiver: WebhookReceiver,
  webhooks: WebhookConfig,
): Promise<void> {
  const taskQueue = uniqueTaskQueue('record-histories');
  mkdirSync(HISTORIES_DIR, { recursive: true });

  /** Runs `ref`'s workflow to its end and writes its history as `<scenario>.json`. */
  async function record(
    scenario: Scenario,
    ref: DeliveryRef,
    respond: Responder,
    wrap?: (real: WebhookDeliveryActivities) => WebhookDeliveryActivities,
  ) {
    receiver.respondWith(respond);
    const handle = await startDelivery(env, taskQueue, ref);
    await runDeliveryWorker(env, taskQueue, webhooks, handle.result(), wrap);
    writeFileSync(join(HISTORIES_DIR, `${scenario}.json`), historyToJson(await handle.fetchHistory()) + '\n');
  }
  const fresh = async () => (await newDelivery(webhooks, receiver.url)).ref;
  const countingTo = (succeedOn: number): Responder => {
    let seen = 0;
    return () => (++seen >= succeedOn ? { status: 204 } : { status: 503 });
  };

  await record('succeeded-on-attempt-1', await fresh(), () => ({ status: 200 }));
  await record('succeeded-after-retries', await fresh(), countingTo(3));
  const failed = await newDelivery(webhooks, receiver.url);
  await record('failed-after-7-attempts', failed.ref, () => ({ status: 500 }));
  await record('stale-run-of-finished-delivery', failed.ref, () => ({ status: 200 }));
  await testDb().transaction((trx) => retryDelivery(trx, failed.tenant.organization.id, failed.ref.deliveryId));
  await record('manual-retry-generation-1', { ...failed.ref, generation: 1 }, () => ({ status: 200 }));
  const gone = await fresh();
  await testDb()('webhook_deliveries').where({ id: gone.deliveryId }).delete();
  await record('gone-delivery-deleted', gone, () => ({ status: 200 }));
  await record('activity-failed-marked-failed', await fresh(), () => ({ status: 200 }), databaseDown);

  // Retry now during the first wait: queries do not let the time-skipping server skip, so the run is caught waiting.
  receiver.respondWith(countingTo(3));
  const waiting = await startDelivery(env, taskQueue, await fresh());
  await runDeliveryWorker(
    env,
    taskQueue,
    webhooks,
    (async () => {
      await waitFor(async () => (await waiting.query(webhookDeliveryStatusQuery)).nextAttemptAt !== null, {
        what: 'the run to wait after its first failed attempt',
      });
      await waiting.signal(webhookDeliveryRetryNowSignal);
      return waiting.result();
    })(),
  );
  const retriedNow: Scenario = 'retried-now-while-waiting';
  writeFileSync(join(HISTORIES_DIR, `${retriedNow}.json`), historyToJson(await waiting.fetchHistory()) + '\n');
}
