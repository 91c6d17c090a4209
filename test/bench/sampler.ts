/**
 * Samples something every `everyMs` while a scenario runs, keeping what `keep` makes of the samples (the largest, the
 * longest); `stop` ends the sampling (within one interval) and resolves with what was kept. A sample that throws ends
 * the sampling, and `stop` throws its error; a sample that may fail harmlessly catches its own error.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Sampling<Kept> {
  stop(): Promise<Kept>;
}

export function sampleUntilStopped<Sample, Kept>(
  sample: () => Promise<Sample>,
  keep: (kept: Kept, sample: Sample) => Kept,
  initial: Kept,
  everyMs: number,
): Sampling<Kept> {
  let kept = initial;
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      kept = keep(kept, await sample());
      await sleep(everyMs);
    }
  })();
  loop.catch(() => undefined); // handled by stop(), which rethrows it
  return {
    async stop() {
      sampling = false;
      await loop;
      return kept;
    },
  };
}
