/**
 * `npm run bench`: starts the real API process against the bootstrapped PostgreSQL and Redis, runs each scenario
 * and prints requests/s, p50/p99 latency, ratios and each process's peak memory.
 *   BENCH_DURATION=10 (seconds per HTTP scenario); BENCH_ONLY=api,debts,outbox,webhooks (default: all)
 */
import { createDb } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { closeSharedResources } from '../support/resources';
import { benchApiContract } from './api.bench';
import { benchDebts } from './debts.bench';
import { benchLifecycle } from './lifecycle.bench';
import { benchOutboxCommits } from './outbox-commits.bench';
import { benchWebhooks } from './webhooks.bench';
import { peakMemoryMiB, startApiProcess } from './support';

async function main(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const only = new Set((process.env.BENCH_ONLY ?? 'api,debts,outbox,webhooks').split(','));
  const db = createDb(testEnv.databaseUrl);
  const api = await startApiProcess({
    API_MODE: 'production',
    DATABASE_URL: testEnv.databaseUrl,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
  });
  try {
    console.log(`bench: ${duration}s per scenario, 20 connections, API pid ${api.pid} at ${api.baseUrl}`);
    const [trivial] = await benchApiContract(db, api, duration);
    if (only.has('debts')) await benchDebts(db, api, duration, trivial!);
    console.log('\npeak memory (VmHWM):');
    console.log(`  api process:   ${peakMemoryMiB(api.pid)} MiB`);
    console.log(`  bench process: ${peakMemoryMiB(process.pid)} MiB (autocannon client, seeding)`);
  } finally {
    await api.stop();
    await db.destroy();
  }
  if (only.has('outbox')) await benchOutboxCommits(Math.min(duration, 5));
  if (only.has('webhooks')) {
    await benchWebhooks();
    await closeSharedResources();
  }
  if (only.has('lifecycle') || !process.env.BENCH_ONLY) await benchLifecycle();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
