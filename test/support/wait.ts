/** Waiting in tests: for a condition, with a deadline, never for a guessed fixed time. */
import { setTimeout as pause } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (default 20 s); the error names `what`. */
  timeoutMs?: number;
  /** What is awaited, for the failure message, e.g. "the delivery's workflow to start". */
  what: string;
  /** How often to ask again; short, since each check is cheap. */
  intervalMs?: number;
}

/**
 * Calls `condition` until it returns a value other than undefined, null or false, and returns that value; fails
 * with `what` once `timeoutMs` have passed. The condition is always tried at least once after the deadline's start.
 */
export async function waitFor<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}`);
    await pause(options.intervalMs ?? 25);
  }
}

/** A gate a test opens when it chooses: e.g. a fake receiver that answers only once the test has looked. */
export function createGate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
