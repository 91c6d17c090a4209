/**
 * Fairness between tenants (docs/webhooks.md): at most `perReceiver` attempts in flight to one organisation's
 * receiver per worker process, and at most `inFlightLimit` across receivers. An attempt that finds no slot waits for
 * one in the worker only while its receiver's queue is expected to drain within `LOCAL_WAIT_MS` (a receiver that
 * answers fast, at its cap for a moment in a burst): a durable timer of a second or more, and the workflow task it
 * costs, would be most of that delivery's time and of the server's work for it. Otherwise it does not wait in the
 * activity (that would hold a workflow task slot, the very thing a hanging receiver must not take): it answers `busy`
 * at once with how long to wait, and the workflow waits that long on a durable timer before trying again.
 *
 * The wait is the receiver's queue drained at its pace: (attempts waiting ahead ÷ its slots) × its recent attempt
 * duration, or the age of its oldest attempt in flight when that is longer. The attempts ahead are counted in
 * PostgreSQL (receiver-queue.ts), the same for every worker process; the pace is this process's, and its slots, so
 * with more processes serving a receiver the wait errs long by their number, never more (a waiter back early asks
 * again and finds its place nearer the head). The age of the oldest attempt counts because, before a hanging
 * receiver's first attempts time out, their age is all that says it is slow, and waits cut from the first estimate
 * alone would bring a burst's waiters back several times in those first seconds.
 * A short fixed back-off would have 1,000 deliveries queued behind a hanging receiver come back every few seconds, and
 * those busy round trips (a workflow task each) would crowd every other tenant's deliveries out of the task queues;
 * paced this way they come back about as fast as the receiver frees slots.
 */

/**
 * Workflow tasks a webhooks worker runs at once per mode (the SDK's default is 40). An attempt is a local activity, and
 * its workflow task holds its slot while it runs (workflows/webhook-delivery.ts), so this is the attempts in flight
 * (`ATTEMPTS_IN_FLIGHT`) plus the slots for the short tasks: busy answers, timers, finishes. Fairness between tenants
 * is the server's (fairness.ts): it orders the tasks it hands out, but a worker runs the tasks it has taken in its own
 * order, so behind a burst another tenant's task waited behind every task the worker held; a few free slots keep the
 * worker busy while the queue, and its fair order, stays on the server (with 1,000 deliveries queued behind a hanging
 * receiver, another tenant's p99 went from 5.1 s to 0.5 s when the worker took 6 tasks at once instead of 40; with
 * attempts as local activities it was 380 ms with 16 slots and 390-501 ms with 30: docs/operators/performance.md). A slot
 * supplier granting "6 + attempts in flight" was tried and starved the normal queue's first tasks behind a tarpit
 * burst (pollers hold reserved slots; docs/operators/performance.md), so 16.
 */
export const WEBHOOKS_WORKFLOW_TASK_SLOTS = 16;

/**
 * Attempts sending at once per worker process and mode, across receivers: two receivers that hang take 8, a third
 * the last 2, and the workflow task slots beyond these stay free for the short tasks instead of every one being held.
 */
export const ATTEMPTS_IN_FLIGHT = 10;

/**
 * Local activities a webhooks worker runs at once per mode: every attempt in flight, and room beside them for the
 * attempts that only answer `busy` (no database, no send). Its database pool is sized from this.
 */
export const WEBHOOKS_LOCAL_ACTIVITY_SLOTS = 12;

/**
 * Activity tasks a webhooks worker runs at once per mode: marking a delivery Failed, the reconciler, the retention
 * purge, the diagnostic probe, and the attempts of runs started before attempts were local activities.
 */
export const WEBHOOKS_ACTIVITY_SLOTS = 6;

/** Attempts in flight to one receiver, per worker process. */
export const RECEIVER_CONCURRENCY = 4;

/**
 * The longest an attempt waits in the worker for a fast receiver's slot. Short beside the 1 s minimum of a busy wait,
 * and it holds a workflow task slot and a local activity slot meanwhile (the slots beyond ATTEMPTS_IN_FLIGHT).
 */
export const LOCAL_WAIT_MS = 250;

/** Bounds of a busy attempt's wait: soon enough to use a slot that frees, never so long a delivery looks stuck. */
export const MIN_BUSY_WAIT_MS = 1_000;
export const MAX_BUSY_WAIT_MS = 10 * 60_000;
/** An attempt's duration before the receiver has finished one (then a moving average of its real ones). */
const FIRST_ATTEMPT_ESTIMATE_MS = 1_000;
/** Weight of the latest attempt in the moving average. */
const AVERAGE_WEIGHT = 0.2;

export interface ReceiverSlots {
  /** A slot for this receiver and the function that frees it, or undefined when it has none free. */
  tryAcquire(receiver: string): (() => void) | undefined;
  /**
   * A slot for this receiver, waiting in the worker for up to `maxWaitMs` when its queue is expected to drain within
   * that (a receiver that answers fast, momentarily at its cap); undefined, at once or after `maxWaitMs`, otherwise.
   * Attempts waiting here are served in the order they came; with `first`, this one goes before them (the head of
   * its receiver's queue, receiver-queue.ts), and its wait is judged by one attempt's drain.
   */
  acquire(receiver: string, maxWaitMs: number, options?: { first?: boolean }): Promise<(() => void) | undefined>;
  inFlight(receiver: string): number;
  /**
   * For an attempt refused a slot, with `ahead` attempts waiting for the receiver before it (receiver-queue.ts): how
   * long it should wait before trying again (before jitter).
   */
  busyWaitMs(receiver: string, ahead: number): number;
}

/** An attempt waiting in the worker for its receiver's next free slot. */
interface QueuedAttempt {
  grant(release: () => void): void;
}

interface ReceiverState {
  /** The attempts in flight and when each started (at most `perReceiver` of them). */
  inFlight: Set<{ startedAt: number }>;
  averageAttemptMs: number;
  /** Attempts waiting in the worker for a slot (`acquire`), first come first served. */
  queue: QueuedAttempt[];
}

export function createReceiverSlots(
  perReceiver = RECEIVER_CONCURRENCY,
  now: () => number = Date.now,
  inFlightLimit = ATTEMPTS_IN_FLIGHT,
): ReceiverSlots {
  let inFlightTotal = 0;
  // One small entry per organisation whose receiver this process has called: its pace outlives its busy spells.
  const receivers = new Map<string, ReceiverState>();
  /** Receivers with attempts queued in the worker, in the order they first queued. */
  const queued = new Set<ReceiverState>();
  const stateOf = (receiver: string): ReceiverState => {
    let state = receivers.get(receiver);
    if (!state)
      receivers.set(
        receiver,
        (state = { inFlight: new Set(), averageAttemptMs: FIRST_ATTEMPT_ESTIMATE_MS, queue: [] }),
      );
    return state;
  };
  const hasSlot = (state: ReceiverState) => state.inFlight.size < perReceiver && inFlightTotal < inFlightLimit;

  /** How long `ahead` attempts take to pass at the receiver's pace: its recent duration, or its oldest in flight. */
  function drainMs(state: ReceiverState, ahead: number): number {
    const at = now();
    let pace = state.averageAttemptMs;
    for (const attempt of state.inFlight) pace = Math.max(pace, at - attempt.startedAt);
    return (ahead / perReceiver) * pace;
  }

  function take(state: ReceiverState): () => void {
    const attempt = { startedAt: now() };
    state.inFlight.add(attempt);
    inFlightTotal++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.inFlight.delete(attempt);
      inFlightTotal--;
      state.averageAttemptMs += AVERAGE_WEIGHT * (now() - attempt.startedAt - state.averageAttemptMs);
      grantQueued();
    };
  }

  function grantQueued(): void {
    for (const state of queued) {
      while (state.queue.length > 0 && hasSlot(state)) {
        const next = state.queue.shift()!;
        next.grant(take(state));
      }
      if (state.queue.length === 0) queued.delete(state);
      if (inFlightTotal >= inFlightLimit) return;
    }
  }

  /** A slot at once, unless none is free or attempts are queued for one ahead of this. */
  const takeIfFree = (state: ReceiverState) => (state.queue.length === 0 && hasSlot(state) ? take(state) : undefined);

  return {
    tryAcquire: (receiver) => takeIfFree(stateOf(receiver)),
    async acquire(receiver, maxWaitMs, options = {}) {
      const state = stateOf(receiver);
      const free = takeIfFree(state);
      if (free) return free;
      if (drainMs(state, options.first ? 1 : state.queue.length + 1) > maxWaitMs) return undefined;
      return new Promise((resolve) => {
        const queuedAttempt: QueuedAttempt = {
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        const timer = setTimeout(() => {
          state.queue.splice(state.queue.indexOf(queuedAttempt), 1);
          if (state.queue.length === 0) queued.delete(state);
          resolve(undefined);
        }, maxWaitMs);
        if (options.first) state.queue.unshift(queuedAttempt);
        else state.queue.push(queuedAttempt);
        queued.add(state);
      });
    },
    inFlight: (receiver) => receivers.get(receiver)?.inFlight.size ?? 0,
    busyWaitMs(receiver, ahead) {
      const wait = drainMs(stateOf(receiver), ahead);
      return Math.round(Math.min(MAX_BUSY_WAIT_MS, Math.max(MIN_BUSY_WAIT_MS, wait)));
    },
  };
}
