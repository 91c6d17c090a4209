/**
 * Fairness between tenants (docs/webhooks.md): at most `perReceiver` attempts in flight to one organisation's
 * receiver per worker process. An attempt that finds its receiver full does not wait for a slot in the activity (that
 * would hold an activity slot, the very thing a hanging receiver must not take): it answers `busy` at once, and the
 * workflow waits on a short timer before trying again.
 */

/**
 * Activity slots of a webhooks worker (per mode): the SDK's default of 100 would let a hanging receiver's attempts
 * queue far beyond the database pool, which is sized from this number (core/temporal/worker-process.ts).
 */
export const WEBHOOKS_ACTIVITY_SLOTS = 30;

/** Attempts in flight to one receiver, per worker process. */
export const RECEIVER_CONCURRENCY = 4;

export interface ReceiverSlots {
  /** A slot for this receiver and the function that frees it, or undefined when it has none free. */
  tryAcquire(receiver: string): (() => void) | undefined;
  inFlight(receiver: string): number;
}

export function createReceiverSlots(perReceiver = RECEIVER_CONCURRENCY): ReceiverSlots {
  const inFlight = new Map<string, number>();
  return {
    tryAcquire(receiver) {
      const taken = inFlight.get(receiver) ?? 0;
      if (taken >= perReceiver) return undefined;
      inFlight.set(receiver, taken + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(receiver) ?? 1) - 1;
        if (left === 0) inFlight.delete(receiver);
        else inFlight.set(receiver, left);
      };
    },
    inFlight: (receiver) => inFlight.get(receiver) ?? 0,
  };
}
