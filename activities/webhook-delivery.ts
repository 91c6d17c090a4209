/**
 * The delivery attempt activity (DECISIONS §4): loads the delivery, its event and its receiver in one query, picks
 * the receiver (the current configuration while one is enabled, so a rotation takes effect at once; else the snapshot
 * taken at enqueue, so a clear does not strand deliveries in flight), signs at send time, POSTs, and records the
 * attempt and the delivery's new status in one statement (atomic on its own). A receiver's failure is a returned
 * result, not an error: only infrastructure errors (database down) throw, and those Temporal retries. Inputs and
 * results carry ids and statuses, never the URL, the secret or the payload, so none of them reach workflow history.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { WebhookConfig } from '../core/platform/config';
import type { Db } from '../core/platform/db';
import { toEventEnvelope } from '../core/events/outbox';
import { sealedSecretOf, SecretUnreadableError, type SecretBox } from '../core/platform/secret-box';
import { type DeliveryRow, type DeliveryStatus } from '../core/webhooks/deliveries';
import { loadAttemptContext, recordAttempt, type AttemptContext } from '../core/webhooks/delivery-attempts';
import { failUnfinishedDelivery, isDeliveryId } from '../core/webhooks/delivery-failure';
import { createWebhookHttp, type SendOutcome, type WebhookHttp } from '../core/webhooks/http-sender';
import {
  DELIVERY_ID_HEADER,
  MODE_HEADER,
  modeHeaderValue,
  SIGNATURE_HEADER,
  signatureHeader,
} from '../core/webhooks/signature';
import type { SigningTarget } from '../core/webhooks/receiver-config';
import { attemptsAhead } from '../core/webhooks/receiver-queue';
import { createReceiverSlots, LOCAL_WAIT_MS, type ReceiverSlots } from '../core/webhooks/receiver-slots';
import type { Registry } from 'prom-client';
import type { Logger } from '../core/platform/logger';
import type { Mode } from '../core/platform/mode';
import { activityLogger, silentLogger } from './activity-log';
import { webhookDeliveryMetrics } from './webhook-delivery-metrics';

export interface DeliverAttemptInput {
  deliveryId: string;
  /** The delivery's organisation, whose receiver's concurrency cap the attempt takes a slot of. */
  organizationId: string;
  /** The run's generation: a run that is no longer the delivery's current one touches nothing. */
  generation: number;
  /** 1-based within this run. */
  attempt: number;
  /** Wait before the next attempt if this one fails; null on the run's last attempt, whose failure is final. */
  retryDelayMs: number | null;
}

export interface DeliverAttemptResult {
  /**
   * `stale`: this run no longer owns the delivery (already final, or retried into a newer run); `gone`: the delivery
   * was deleted. Either way nothing was sent and the run ends. `busy`: the receiver has its share of attempts in
   * flight (receiver-slots.ts); nothing was sent or recorded, and the workflow tries the same attempt again shortly.
   */
  outcome: 'sent' | 'stale' | 'gone' | 'busy';
  succeeded: boolean;
  httpStatus: number | null;
  deliveryStatus: DeliveryStatus;
  /** The attempt's number in the delivery log (across runs), when one was made. */
  attemptNumber: number | null;
  /** `busy` only: how long to wait before asking again (receiver-slots.ts), before the workflow's jitter. */
  retryAfterMs?: number;
}

/** The error type of an attempt input that can never succeed: the workflow's retry policy names it non-retryable. */
export const INVALID_DELIVERY_INPUT = 'InvalidDeliveryInput';

export interface MarkDeliveryFailedInput {
  deliveryId: string;
  generation: number;
}

/** Refuses, without retries, an input no attempt could ever succeed with (it would fail the same way every time). */
function assertValidInput(input: DeliverAttemptInput): void {
  const { deliveryId, generation, attempt, retryDelayMs } = input;
  const valid =
    isDeliveryId(deliveryId) &&
    Number.isSafeInteger(generation) &&
    generation >= 0 &&
    Number.isSafeInteger(attempt) &&
    attempt >= 1 &&
    (retryDelayMs === null || (Number.isSafeInteger(retryDelayMs) && retryDelayMs > 0));
  if (!valid) {
    throw ApplicationFailure.create({
      type: INVALID_DELIVERY_INPUT,
      message: 'deliverWebhookAttempt input is invalid',
      nonRetryable: true,
    });
  }
}

export interface WebhookDeliveryActivityDeps {
  db: Db;
  webhooks: WebhookConfig;
  /** Opens the receivers' signing secrets; built once by the worker process from the configured key. */
  secretBox: SecretBox;
  /** Defaults to one client per activities instance, so connections to receivers are reused. */
  http?: WebhookHttp;
  /** Defaults to RECEIVER_CONCURRENCY per organisation and ATTEMPTS_IN_FLIGHT in all, for this activities instance. */
  receiverSlots?: ReceiverSlots;
  /** The worker's mode and logger: each attempt is logged with its request, delivery and workflow ids. */
  mode?: Mode;
  logger?: Logger;
  /** prom-client's default registry unless given. */
  registry?: Registry;
}

/**
 * Heartbeats every second while the attempt runs as an activity task (runs from before attempts were local): a killed
 * worker's attempt is retried after the heartbeat timeout. A local activity has no heartbeat: its workflow task's
 * timeout does that job.
 */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    context = undefined; // called outside a worker (unit use): nothing to heartbeat to
  }
  const timer = context && !context.info.isLocal ? setInterval(() => context.heartbeat(), 1_000) : undefined;
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The receiver for this attempt: the one enabled now (read with the delivery), else the delivery's snapshot. A secret
 * that does not open (WEBHOOK_SECRET_KEY changed) is a configuration fault no retry of the activity can fix: it is
 * reported as the attempt's error, and the schedule goes on.
 */
function chooseTarget(secretBox: SecretBox, { delivery, receiver }: AttemptContext): SigningTarget | string {
  const { url, sealed } = receiver ?? { url: delivery.url, sealed: sealedSecretOf(delivery) };
  try {
    return { url, secret: secretBox.open(sealed, delivery.organization_id) };
  } catch (err) {
    if (err instanceof SecretUnreadableError) return 'configuration error: the signing secret cannot be decrypted';
    throw err;
  }
}

function unsent(error: string): SendOutcome {
  return { succeeded: false, httpStatus: null, latencyMs: 0, error, responseBody: null };
}

/** Signs at send time (so `t` is fresh on every attempt) and POSTs the event's envelope. */
async function send(
  http: WebhookHttp,
  delivery: DeliveryRow,
  event: Parameters<typeof toEventEnvelope>[0],
  target: SigningTarget,
  at: Date,
  mode: Mode,
): Promise<SendOutcome> {
  const body = JSON.stringify(toEventEnvelope(event));
  const headers = {
    [SIGNATURE_HEADER]: signatureHeader(target.secret, body, at),
    [DELIVERY_ID_HEADER]: delivery.id,
    [MODE_HEADER]: modeHeaderValue(mode),
  };
  return http.send(target.url, body, headers);
}

/** The delivery was deleted (a sandbox reset wipes deliveries): nothing to send, and nothing a retry could fix. */
const GONE: DeliverAttemptResult = {
  outcome: 'gone',
  succeeded: false,
  httpStatus: null,
  deliveryStatus: 'Failed',
  attemptNumber: null,
};

const BUSY: DeliverAttemptResult = {
  outcome: 'busy',
  succeeded: false,
  httpStatus: null,
  deliveryStatus: 'Pending',
  attemptNumber: null,
};

function stale(delivery: DeliveryRow): DeliverAttemptResult {
  return { outcome: 'stale', succeeded: false, httpStatus: null, deliveryStatus: delivery.status, attemptNumber: null };
}

function statusAfter(outcome: SendOutcome, input: DeliverAttemptInput): DeliveryStatus {
  if (outcome.succeeded) return 'Succeeded';
  return input.retryDelayMs === null ? 'Failed' : 'Pending';
}

export function createWebhookDeliveryActivities(deps: WebhookDeliveryActivityDeps) {
  const { db, webhooks, secretBox } = deps;
  const http = deps.http ?? createWebhookHttp(webhooks);
  const receiverSlots = deps.receiverSlots ?? createReceiverSlots();
  const metrics = webhookDeliveryMetrics(deps.registry);
  const mode = deps.mode ?? 'production';
  const logger = deps.logger ?? silentLogger;

  return {
    // Heartbeats cover the whole attempt (database waits included), so only a dead worker misses them.
    deliverWebhookAttempt: async (input: DeliverAttemptInput): Promise<DeliverAttemptResult> => {
      assertValidInput(input);
      return withHeartbeat(() => attemptWithReceiverSlot(input));
    },
    /** After an attempt failed for good: the delivery is Failed, not left Pending with no run behind it. */
    markDeliveryFailed: async (input: MarkDeliveryFailedInput): Promise<boolean> => {
      const failed = await failUnfinishedDelivery(db, input.deliveryId, input.generation);
      if (failed) {
        metrics.finished.inc({ mode, status: 'Failed' });
        activityLogger(logger, { requestId: failed.requestId, deliveryId: input.deliveryId }).warn(
          { generation: input.generation },
          'webhook delivery failed: its attempt could not run',
        );
      }
      return failed !== undefined;
    },
  };

  /**
   * A receiver with its share of attempts in flight is told so before any other database work: a `busy` answer reads
   * only the count of the attempts waiting ahead (receiver-queue.ts), to say how long to wait. A fast receiver's next
   * free slot is waited for here, briefly (receiver-slots.ts).
   */
  async function attemptWithReceiverSlot(input: DeliverAttemptInput): Promise<DeliverAttemptResult> {
    let release = await receiverSlots.acquire(input.organizationId, LOCAL_WAIT_MS);
    if (!release) {
      const ahead = await attemptsAhead(db, input.organizationId, input.deliveryId);
      // The head of its receiver's queue (an API debt's delivery while its tenant's placement fills the receiver's
      // slots: nothing of its own kind ahead) takes the worker's next free slot, first in line, not a 1 s timer.
      if (ahead === 0) release = await receiverSlots.acquire(input.organizationId, LOCAL_WAIT_MS, { first: true });
      if (!release) return { ...BUSY, retryAfterMs: receiverSlots.busyWaitMs(input.organizationId, ahead) };
    }
    try {
      return await attempt(input);
    } finally {
      release();
    }
  }

  /** One log line and the metrics of a recorded attempt; the delivery counts once it is final. */
  function observe(
    delivery: DeliveryRow,
    attempt: { number: number; status: DeliveryStatus; outcome: SendOutcome; sent: boolean },
  ): void {
    const { number, status, outcome, sent } = attempt;
    const result = !sent ? 'not_sent' : outcome.succeeded ? 'succeeded' : 'failed';
    if (sent) metrics.attemptSeconds.observe({ mode, outcome: result }, outcome.latencyMs / 1000);
    if (status !== 'Pending') metrics.finished.inc({ mode, status });
    const log = activityLogger(logger, { requestId: delivery.request_id, deliveryId: delivery.id });
    log[outcome.succeeded ? 'info' : 'warn'](
      {
        attempt: number,
        outcome: result,
        httpStatus: outcome.httpStatus,
        ...(outcome.error !== null && { error: outcome.error }),
        latencyMs: outcome.latencyMs,
        status,
      },
      'webhook attempt',
    );
  }

  async function attempt(input: DeliverAttemptInput): Promise<DeliverAttemptResult> {
    const loaded = await loadAttemptContext(db, input.deliveryId);
    if (!loaded) return { ...GONE };
    const { delivery, event } = loaded;
    if (delivery.status !== 'Pending' || delivery.generation !== input.generation) return stale(delivery);

    const target = chooseTarget(secretBox, loaded);
    const startedAt = new Date();
    const outcome =
      typeof target === 'string' ? unsent(target) : await send(http, delivery, event, target, startedAt, mode);
    const url = typeof target === 'string' ? delivery.url : target.url;

    const status = statusAfter(outcome, input);
    const number = delivery.attempt_base + input.attempt;
    const nextAttemptAt = status === 'Pending' ? new Date(Date.now() + input.retryDelayMs!) : null;
    const recorded = await recordAttempt(db, {
      deliveryId: delivery.id,
      generation: input.generation,
      number,
      url,
      startedAt,
      ...outcome,
      status,
      nextAttemptAt,
    });
    if (!recorded) return stale({ ...delivery, status: 'Pending' });
    observe(delivery, { number, status, outcome, sent: typeof target !== 'string' });
    return {
      outcome: 'sent',
      succeeded: outcome.succeeded,
      httpStatus: outcome.httpStatus,
      deliveryStatus: status,
      attemptNumber: number,
    };
  }
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
