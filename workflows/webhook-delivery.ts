/**
 * One webhook delivery (DECISIONS §4): attempt 1 at once; after each failure, a durable timer of 1 min, 5 min,
 * 30 min, 2 h, 12 h, then 24 h; the delivery is Failed when the sixth retry (seventh attempt) fails. The schedule
 * lives here as workflow timers, not in an activity retry policy, so it is exact and visible in the history.
 * Input is ids only; the activity loads everything else.
 */
import {
  TemporalFailure,
  condition,
  defineQuery,
  defineSignal,
  isCancellation,
  proxyActivities,
  patched,
  proxyLocalActivities,
  setHandler,
  type RetryPolicy,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  DeliverAttemptResult,
  INVALID_DELIVERY_INPUT,
  WebhookDeliveryActivities,
} from '../activities/webhook-delivery';
import {
  DELIVERY_SIGNALS,
  PATCH_IDS,
  SEARCH_ATTRIBUTE_KEYS,
  pendingDeliverySearchAttributes,
} from '../core/temporal/names';

/** Waits before retries 1 to 6 (ms). */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000] as const;

export interface WebhookDeliveryInput {
  deliveryId: string;
  organizationId: string;
  eventType: string;
  /** Which run of the delivery this is: 0, then one more per manual retry. */
  generation: number;
}

export type WebhookDeliveryState = 'Pending' | 'Succeeded' | 'Failed';

export interface WebhookDeliveryStatus {
  deliveryStatus: WebhookDeliveryState;
  /** Attempts made by this run. */
  attempts: number;
  lastHttpStatus: number | null;
  /** Workflow time of the next attempt while waiting for it (ISO 8601). */
  nextAttemptAt: string | null;
}

export const webhookDeliveryStatusQuery = defineQuery<WebhookDeliveryStatus>('status');

/**
 * Retry now (the console's button on a delivery waiting between attempts, as Stripe's and Svix's): the wait ends and
 * the next attempt is made at once; if it fails, the schedule goes on from there (the wait after it is the one that
 * attempt would have had). Sent while no wait is under way, it is ignored.
 */
export const webhookDeliveryRetryNowSignal = defineSignal(DELIVERY_SIGNALS.retryNow);

type DeliverAttempt = WebhookDeliveryActivities['deliverWebhookAttempt'];

const { organizationId: ORGANIZATION_ID, deliveryStatus: DELIVERY_STATUS } = SEARCH_ATTRIBUTE_KEYS;

/** The activity's error type for an input that can never succeed (the compiler checks it matches the activity's). */
const INVALID_INPUT: typeof INVALID_DELIVERY_INPUT = 'InvalidDeliveryInput';

/**
 * Retries here are for the activity's own infrastructure failures (database down, worker lost): a receiver's failure
 * is a returned result. Bounded: 1 s doubling to 1 min, 20 attempts, about 14 minutes of waiting, so a database
 * outage of a few minutes is ridden out, and a longer one ends the run (the delivery is then marked Failed).
 * Start-to-close 30 s: the send's own budget is 10 s, plus the database reads and the attempt's record. The
 * heartbeat timeout notices a killed worker during a slow send.
 */
export const ATTEMPT_ACTIVITY_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 20,
  nonRetryableErrorTypes: [INVALID_INPUT],
};

/**
 * The attempt runs as a local activity: in the worker that runs the workflow task, recorded in the history as a marker,
 * with no activity task for the server to queue, hand out and record (about a third of the server's work per delivery:
 * docs/operators/performance.md). Every retry of the policy waits on a durable timer (`localRetryThreshold` below the first
 * interval), as a regular activity's would. A worker killed mid-attempt is noticed by the workflow task's timeout
 * (10 s), and the next worker runs the attempt again. The workflow task, and its slot in the worker, stays open while
 * the attempt runs: receiver-slots.ts keeps a handful free of attempts.
 */
const { deliverWebhookAttempt } = proxyLocalActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: ATTEMPT_ACTIVITY_RETRY,
  localRetryThreshold: '500 milliseconds',
});

/** Runs started before the attempt became a local activity, replayed: their attempts stay activity tasks. */
const attemptAsActivityTask = proxyActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '5 seconds',
  retry: ATTEMPT_ACTIVITY_RETRY,
}).deliverWebhookAttempt;

/** Marking Failed is one UPDATE; it keeps trying for a day, so an outage that ended the attempt cannot strand it. */
const { markDeliveryFailed } = proxyActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  const status: WebhookDeliveryStatus = {
    deliveryStatus: 'Pending',
    attempts: 0,
    lastHttpStatus: null,
    nextAttemptAt: null,
  };
  setHandler(webhookDeliveryStatusQuery, () => status);
  const deliver = patched(PATCH_IDS.deliveryAttemptLocal) ? deliverWebhookAttempt : attemptAsActivityTask;
  // Runs from before Retry now replay (and, still open, wait out their timers) as they were: a plain sleep.
  const retryNow = patched(PATCH_IDS.deliveryRetryNow) ? listenForRetryNow() : undefined;
  // The delivery starter sets these at the start (deliveryStartOptions), so a run waiting in a backlog is already
  // found by them. A run started without them (by a starter from before that, or by hand) sets them here. The branch
  // follows the start event, which replay reads the same way, so both kinds of history replay.
  if (workflowInfo().typedSearchAttributes.get(ORGANIZATION_ID) === undefined) {
    upsertSearchAttributes(pendingDeliverySearchAttributes(input.organizationId, input.eventType));
  }

  for (let attempt = 1; attempt <= RETRY_DELAYS_MS.length + 1; attempt++) {
    const retryDelayMs = RETRY_DELAYS_MS[attempt - 1] ?? null;
    const result = await attemptOrGiveUp(deliver, input, attempt, retryDelayMs);
    if (!result) return finish(status, 'Failed');
    if (result.outcome !== 'sent') return finish(status, result.deliveryStatus);
    status.attempts = attempt;
    status.lastHttpStatus = result.httpStatus;
    if (result.deliveryStatus !== 'Pending') return finish(status, result.deliveryStatus);
    status.nextAttemptAt = new Date(Date.now() + retryDelayMs!).toISOString();
    if (retryNow) await retryNow.wait(retryDelayMs!);
    else await sleep(retryDelayMs!);
    status.nextAttemptAt = null;
  }
  return finish(status, 'Failed'); // not reached: the last attempt's result is never Pending
}

/**
 * One attempt; null when its activity failed for good (retries exhausted or a non-retryable input). The delivery is
 * then marked Failed, so it is never left Pending with no run behind it. A cancellation is passed on.
 */
async function attemptOrGiveUp(
  deliver: DeliverAttempt,
  input: WebhookDeliveryInput,
  attempt: number,
  retryDelayMs: number | null,
): Promise<DeliverAttemptResult | null> {
  try {
    return await attemptWhenReceiverFree(deliver, { ...input, attempt, retryDelayMs });
  } catch (err) {
    // An activity task's failure arrives as an ActivityFailure; a local activity's as its own failure, unwrapped.
    if (!(err instanceof TemporalFailure) || isCancellation(err)) throw err;
    await markDeliveryFailed({ deliveryId: input.deliveryId, generation: input.generation });
    return null;
  }
}

/** The wait between attempts that the `retryNow` signal ends early; a signal outside a wait is dropped. */
function listenForRetryNow() {
  let waiting = false;
  let asked = false;
  setHandler(webhookDeliveryRetryNowSignal, () => {
    if (waiting) asked = true;
  });
  return {
    async wait(ms: number): Promise<void> {
      waiting = true;
      asked = false;
      try {
        await condition(() => asked, ms);
      } finally {
        waiting = false;
        asked = false;
      }
    },
  };
}

function finish(status: WebhookDeliveryStatus, final: WebhookDeliveryState): WebhookDeliveryStatus {
  status.deliveryStatus = final;
  status.nextAttemptAt = null;
  upsertSearchAttributes([{ key: DELIVERY_STATUS, value: final }]);
  return status;
}

/**
 * Fairness (docs/webhooks.md): a receiver with its share of attempts in flight answers `busy` without sending, with
 * how long its queue takes to drain (receiver-slots.ts), and the attempt waits that long here on a durable timer,
 * jittered ±50 % so waiters spread out, instead of holding a workflow task slot. (Results recorded before the activity
 * said how long carry no `retryAfterMs`: those waited 2 s, doubling to 30 s.)
 */
async function attemptWhenReceiverFree(
  deliver: DeliverAttempt,
  input: Parameters<DeliverAttempt>[0],
): Promise<DeliverAttemptResult> {
  for (let waited = 0; ; waited++) {
    const result = await deliver(input);
    if (result.outcome !== 'busy') return result;
    const wait = result.retryAfterMs ?? Math.min(2_000 * 2 ** waited, 30_000);
    await sleep(wait * (0.5 + Math.random())); // workflow random: replay-safe
  }
}
