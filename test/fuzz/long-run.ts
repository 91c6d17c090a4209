/**
 * `npm run fuzz` (via scripts/fuzz.sh): a long fuzzing run. FUZZ_SECONDS (default 600), FUZZ_SEED (default 1) and
 * FUZZ_MODE (`production`, the default, or `sandbox`: the host whose document is fuzzed).
 */
import { closeSharedResources } from '../support/resources';
import { prepareTestSlot } from '../support/scratch-databases';
import { fuzzTheApi } from './fuzz-stack';

async function main(): Promise<void> {
  const maxTimeSeconds = Number(process.env.FUZZ_SECONDS ?? 600);
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  const mode = process.env.FUZZ_MODE === 'sandbox' ? 'sandbox' : 'production';
  await prepareTestSlot(); // its own copy of the migrated test database and Redis database
  process.stdout.write(`fuzzing the ${mode} API for ${maxTimeSeconds} s with seed ${seed}…\n`);
  const result = await fuzzTheApi({ seed, maxTimeSeconds, mode, reportDir: 'schemathesis-report' });
  process.stdout.write(result.output);
  await closeSharedResources();
  process.exit(result.exitCode);
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz run failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
