/** Waiting for a condition with a deadline, instead of sleeping for a guessed time. */
export interface WaitOptions {
  /** What is awaited, for the error message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/** Resolves once `condition` returns true; rejects naming `what` when the deadline passes first. */
export async function waitFor(condition: () => Promise<boolean> | boolean, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
