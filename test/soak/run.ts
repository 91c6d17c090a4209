/**
 * `npm run soak`: a realistic mix at half the measured maximum (what the whole stack sustains, its work done) for
 * SOAK_MINUTES (30), on a stack of its own (soak-stack.ts), then the verdicts (soak-report.ts): p99 per route, memory per process and the lag of each stage,
 * first window against last, and nothing lost once drained. Figures, not assertions: the exit code says whether
 * every verdict passed.
 *   SOAK_MINUTES=30   the run's length; its first and last windows are 5 minutes (a sixth of a shorter run)
 *   SOAK_RATE=…       operations a second instead of half the measured maximum
 *   SOAK_PROBE_SECONDS=30  how long the closed-loop maximum is measured
 * `npm run soak -- --profile` runs the same on the production profile (soak-profile-stack.ts): through its TLS proxy,
 * on the real Temporal server on PostgreSQL, APP_ENV=production; figures under bench-results/soak-profile-*.
 */
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { refuseDevStackConnections } from '../support/isolation';
import { checkBooks } from './soak-books';
import { measureMaximum, runOpenLoop } from './soak-load';
import { report } from './soak-report';
import { startSampler } from './soak-samples';
import { startProfileSoakStack } from './soak-profile-stack';
import { startSoakStack } from './soak-stack';

const ROOT = path.resolve(__dirname, '..', '..');
const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const windowSeconds = Math.min(300, (minutes * 60) / 6);
const probeSeconds = Number(process.env.SOAK_PROBE_SECONDS ?? 30);
const onProfile = process.argv.includes('--profile');

function log(line: string): void {
  console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
}

async function main(): Promise<void> {
  refuseDevStackConnections();
  const stack = await (onProfile ? startProfileSoakStack(log) : startSoakStack(log));
  let pass = false;
  try {
    // The maximum is what the whole stack sustains, not what the API answers: the API takes a closed loop's requests
    // far faster than the deliveries, lifecycles and mails they set off can follow (a soak at half the API's rate
    // ran 30 minutes with its deliveries falling further behind every minute). So the probe's work is timed to its
    // end — every delivery made, workflow started, mail sent — and the maximum is its operations over that time.
    log(`measuring the mix's maximum closed-loop for ${probeSeconds} s`);
    const probe = await measureMaximum(stack, probeSeconds);
    log(`the API answered ${probe.perSecond.toFixed(1)}/s; waiting for the work the probe set off to finish`);
    const drained = await checkBooks(stack); // settled, so the first window does not carry the probe's backlog
    if (drained.problems.length > 0) log(`the probe's work had not finished: ${drained.problems.join('; ')}`);
    const sustainedPerSecond = probe.operations / (probeSeconds + drained.drainSeconds);
    const maximumPerSecond = Math.min(probe.perSecond, sustainedPerSecond);
    const ratePerSecond = Number(process.env.SOAK_RATE ?? maximumPerSecond / 2);
    log(
      `sustained ${sustainedPerSecond.toFixed(1)}/s (${probe.operations} operations, their work done ` +
        `${drained.drainSeconds.toFixed(0)} s after the probe); offering ${ratePerSecond.toFixed(1)}/s`,
    );
    const started = Date.now();
    const sampler = startSampler(stack, started);
    const load = runOpenLoop(stack, ratePerSecond);
    for (let minute = 1; minute <= minutes; minute++) {
      await pause(Math.max(0, started + minute * 60_000 - Date.now()));
      log(`minute ${minute}/${minutes}: ${load.samples.length} answered, ${load.shed} shed`);
    }
    await load.stop();
    await sampler.stop();
    log('load stopped; waiting for the stack to drain and checking the books');
    const books = await checkBooks(stack);
    ({ pass } = report(
      {
        minutes,
        windowSeconds,
        maximumPerSecond,
        apiMaximumPerSecond: probe.perSecond,
        ratePerSecond,
        shed: load.shed,
        samples: load.samples,
        states: sampler.samples,
        books,
      },
      ROOT,
      stack.name === 'profile' ? 'soak-profile' : 'soak',
    ));
  } finally {
    await stack.stop();
  }
  process.exitCode = pass ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
