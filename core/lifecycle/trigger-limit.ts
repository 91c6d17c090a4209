/**
 * A per-process cap on lifecycle triggers waiting on Temporal. A trigger may wait up to
 * TRIGGER_TIMEOUT_MS on a slow or stopped lifecycle worker, and while it waits its request holds a database
 * connection; without a cap, ten such waits took the whole pool and every tenant's API with it. Past the cap a trigger
 * is refused at once with `503 service_unavailable` and `Retry-After`, so the connections it would have held stay free
 * for everyone else's reads and writes.
 */
import { ApiError } from '../platform/errors';

/** Well below the API's pool (10 connections): the rest of the API keeps at least half of it. */
export const DEFAULT_TRIGGERS_IN_FLIGHT = 4;
/** What a refused trigger tells the client to wait: about as long as a worker takes to catch up after a pause. */
export const TRIGGER_RETRY_AFTER_SECONDS = 2;

export interface TriggerLimit {
  /** Runs `work` if a slot is free, else throws `service_unavailable` without waiting. */
  run<T>(work: () => Promise<T>): Promise<T>;
  inFlight(): number;
}

export function createTriggerLimit(max = DEFAULT_TRIGGERS_IN_FLIGHT): TriggerLimit {
  let inFlight = 0;
  return {
    async run(work) {
      if (inFlight >= max) {
        throw new ApiError(
          'service_unavailable',
          'Too many changes are waiting on debts’ workflows right now; retry shortly.',
          { headers: { 'Retry-After': String(TRIGGER_RETRY_AFTER_SECONDS) } },
        );
      }
      inFlight++;
      try {
        return await work();
      } finally {
        inFlight--;
      }
    },
    inFlight: () => inFlight,
  };
}
