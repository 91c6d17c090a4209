/**
 * When a plan timer whose effect failed is tried again (debt-lifecycle.ts): pure, so the workflow's pauses are the
 * same on every replay.
 */

/** A timer whose effect failed is tried again after 1, 2, 4 … minutes, at most an hour apart. */
const TIMER_RETRY_FIRST_MS = 60_000;
const TIMER_RETRY_MAX_MS = 3_600_000;
export const timerRetryDelay = (failures: number): number =>
  Math.min(TIMER_RETRY_MAX_MS, TIMER_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 20));
