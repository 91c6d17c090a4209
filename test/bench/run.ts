/**
 * `npm run bench`: starts the real API process (one process: per-process figures) and the bare ceilings' process
 * (bare-server.ts) against PostgreSQL and Redis, runs each scenario against its bare ceiling in the same run, prints
 * ratios with their targets (PASS/BELOW), p50/p99 and each process's peak memory, and writes the same as JSON
 * (bench-results/latest.json, path printed). Nothing here asserts: benchmarks print, tests assert.
 *   BENCH_DURATION=10 (seconds per load)
 *   BENCH_ONLY=api,debts,documents,lists,console,portal,outbox,webhooks,lifecycle,reconcile,mail,burst,placements,
 *   stage (default: all; stage is the production profile: stage.bench.ts)
 *   PLACEMENT_ROWS=100000: the placements scenario's large file (placements.bench.ts)
 *   BENCH_QUICK=1: small data, 2 s per load (the smoke test's mode; its figures mean nothing)
 *   BENCH_DATABASE_URL: the list tenants (up to 1,000,000 rows each) are kept there between runs; default: the
 *   client_api_bench database on the tests' server (scripts/bench.sh creates and migrates it), or TEST_DATABASE_URL in quick mode
 *   (whose small tenants are removed afterwards)
 * CPU profiles of the hot paths: test/bench/profile.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { refuseDevStackConnections } from '../support/isolation';
import { sharedMailSink, stopSharedMailSink } from '../support/mail-sink';
import { closeSharedResources } from '../support/resources';
import { prepareTestSlot } from '../support/scratch-databases';
import { benchApiContract } from './api.bench';
import { benchBurst } from './burst.bench';
import { benchConsole } from './console.bench';
import type { BenchContext } from './context';
import { benchDebtCreation } from './debts.bench';
import { benchDocumentUploads } from './documents.bench';
import { benchLifecycle } from './lifecycle.bench';
import { benchLists } from './lists.bench';
import { benchMail } from './mail.bench';
import { benchPlacements } from './placements.bench';
import { benchPortal } from './portal.bench';
import { benchOutboxCommits } from './outbox-commits.bench';
import { benchReconcile } from './reconcile.bench';
import { benchStage } from './stage.bench';
import { check, finish, newReport, recordMemory, type BenchReport } from './report';
import { benchWebhooks } from './webhooks.bench';
import { COMPILED_API, ROOT, buildCompiled, peakMemoryMiB, startApiProcess, startBenchProcess } from './support';

const quick = process.env.BENCH_QUICK === '1';
const duration = Number(process.env.BENCH_DURATION ?? (quick ? 2 : 10));
const only = new Set(
  (
    process.env.BENCH_ONLY ??
    'api,debts,documents,lists,console,portal,outbox,webhooks,lifecycle,reconcile,mail,burst,placements,stage'
  ).split(','),
);
const HTTP_SCENARIOS = ['api', 'lists', 'console', 'portal', 'debts', 'documents'];
// On the tests' PostgreSQL server (scripts/bench.sh creates it there), never the development stack's.
const BENCH_DATABASE = 'postgres://client_api:client_api@127.0.0.1:5433/client_api_bench';
const databaseUrl = process.env.BENCH_DATABASE_URL ?? (quick ? testEnv.databaseUrl : BENCH_DATABASE);
const redisUrl = process.env.BENCH_REDIS_URL ?? testEnv.redisUrl;

async function httpScenarios(ctx: Omit<BenchContext, 'api' | 'bare'>): Promise<void> {
  // The API's documents go to a scratch directory, which the upload scenario also writes to directly.
  const documentDir = mkdtempSync(path.join(os.tmpdir(), 'bench-documents-'));
  const env = { API_MODE: 'production', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DOCUMENT_DIR: documentDir };
  const api = await startApiProcess(env, [], COMPILED_API);
  const documentStoreDir = path.join(documentDir, 'production'); // the mode's directory, as config.ts appends it
  const bare = await startBenchProcess('test/bench/bare-server.ts', {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    DOCUMENT_DIR: documentStoreDir, // the bare upload route writes to the same store
  }).catch(async (err: unknown) => {
    await api.stop(); // not left running behind a failed start
    throw err;
  });
  const full = { ...ctx, api, bare };
  try {
    console.log(`API pid ${api.pid} at ${api.baseUrl}, bare pid ${bare.pid} at ${bare.baseUrl}`);
    if (only.has('api')) await attempt(ctx.report, 'api', () => benchApiContract(full));
    if (only.has('lists')) await attempt(ctx.report, 'lists', () => benchLists(full));
    if (only.has('console')) await attempt(ctx.report, 'console', () => benchConsole(full));
    if (only.has('portal')) await attempt(ctx.report, 'portal', () => benchPortal(full));
    if (only.has('debts')) await attempt(ctx.report, 'debts', () => benchDebtCreation(full));
    if (only.has('documents'))
      await attempt(ctx.report, 'documents', () => benchDocumentUploads(full, documentStoreDir));
    recordMemory(ctx.report, 'api process (1 process)', api.pid, peakMemoryMiB(api.pid));
    recordMemory(ctx.report, 'bare process', bare.pid, peakMemoryMiB(bare.pid));
  } finally {
    await Promise.all([api.stop(), bare.stop()]);
    rmSync(documentDir, { recursive: true, force: true });
  }
}

/** A scenario that fails is reported and the run goes on, so one broken scenario does not lose the others. */
async function attempt(report: BenchReport, name: string, scenario: () => Promise<unknown>): Promise<void> {
  try {
    await scenario();
  } catch (err) {
    console.error(`scenario ${name} failed:`, err);
    report.errors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function main(): Promise<void> {
  // Like the tests, the bench keeps off the development stack: its own mail sink unless the caller named one.
  refuseDevStackConnections();
  process.env.SMTP_URL ??= (await sharedMailSink()).smtpUrl;
  // The outbox, webhooks and lifecycle scenarios work in this process's test slot, as a test would (and quick mode's
  // HTTP scenarios too): a fresh copy of the migrated template, which a machine where no test has run yet lacks.
  await prepareTestSlot();
  const report = newReport({ quick, secondsPerLoad: duration, connections: 20 });
  buildCompiled(); // the API under test runs as production runs it, from dist/
  const db = createDb(databaseUrl, { pool: { min: 0, max: 4 }, unboundedStatements: true }); // the seeders
  console.log(
    `bench: ${duration}s per load, 20 connections${quick ? ' (QUICK: small data, figures mean nothing)' : ''}`,
  );
  try {
    const sizes: BenchContext['sizes'] = quick ? [100, 1_000, 2_000] : [1_000, 100_000, 1_000_000];
    // The API and bare processes only when a scenario of theirs runs.
    if (HTTP_SCENARIOS.some((name) => only.has(name))) {
      await httpScenarios({ db, databaseUrl, redisUrl, report, duration, warmUp: Math.min(2, duration), sizes, quick });
    }
  } finally {
    await db.destroy();
  }
  if (only.has('outbox')) await attempt(report, 'outbox', () => benchOutboxCommits(Math.min(duration, 5)));
  if (only.has('webhooks')) {
    const events = quick ? 40 : undefined;
    const options = { report, events, pacedSeconds: quick ? 2 : undefined, tarpitEvents: quick ? 20 : undefined };
    await attempt(report, 'webhooks', () => benchWebhooks(options));
  }
  if (only.has('lifecycle')) await attempt(report, 'lifecycle', () => lifecycleScenario(report));
  if (only.has('reconcile')) {
    const options = { report, databaseUrl, deliveries: quick ? 2_000 : undefined, removeAfter: quick };
    await attempt(report, 'reconcile', () => benchReconcile(options));
  }
  if (only.has('mail')) {
    const sizes = quick ? { busyDebts: 1_000, quietEveryMs: 250 } : {};
    await attempt(report, 'mail', () => benchMail({ report, databaseUrl, ...sizes }));
  }
  if (only.has('burst')) await attempt(report, 'burst', () => benchBurst({ report, debts: quick ? 200 : undefined }));
  if (only.has('placements')) {
    const sizes = quick
      ? {
          rows: Number(process.env.PLACEMENT_ROWS ?? 200),
          quietDebts: 3,
          quietEveryMs: 250,
          drain: { windowSeconds: 1, ratePerSecond: 5 },
        }
      : {};
    await attempt(report, 'placements', () => benchPlacements({ report, ...sizes }));
  }
  if (only.has('stage'))
    await attempt(report, 'stage', () => benchStage({ report, debts: quick ? 100 : undefined, seconds: duration }));
  recordMemory(report, 'bench process (autocannon client, seeding)', process.pid, peakMemoryMiB(process.pid));
  finish(report, ROOT);
  await closeSharedResources();
  await stopSharedMailSink(); // its SMTP server would keep the process from ending
  if (report.errors.length > 0) process.exitCode = 1;
}

/** Debts created with their lifecycle workflows against no-op workflows, and the worker's memory on open timers. */
async function lifecycleScenario(report: BenchReport): Promise<void> {
  const result = await benchLifecycle(quick ? { debts: 50, openDebts: 200 } : {});
  check(report, {
    scenario: 'lifecycle',
    name: `debts created with their workflows (${result.debtsPerSecond.toFixed(1)}/s) / no-op workflows (${result.floorWorkflowsPerSecond.toFixed(1)}/s)`,
    value: result.ratio,
    unit: '×',
    bound: { atLeast: 0.5 },
  });
  recordMemory(report, `lifecycle worker, ${result.openDebts} open debts on timers`, 0, result.workerPeakMiB);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
