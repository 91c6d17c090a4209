/**
 * `npm run chaos`: test/chaos/chaos-run.ts for CHAOS_ROUNDS rounds (default 5), each killing every process of its own
 * stack once under load; prints the counts and exits non-zero if anything was lost or doubled.
 */
import { runChaos } from './chaos-run';

async function main(): Promise<void> {
  const rounds = Number(process.env.CHAOS_ROUNDS ?? 5);
  const report = await runChaos({
    rounds,
    progressBetweenKills: Number(process.env.CHAOS_PROGRESS ?? 50),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(report, null, 2));
  if (report.problems.length > 0) process.exitCode = 1;
}

void main();
