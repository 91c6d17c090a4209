/**
 * Property-based fuzzing of the whole OpenAPI surface against the real stack (hardening item 5): a Temporal dev
 * server, the API as its own process on a free port (test database and Redis), a tenant key of every scope, and
 * Schemathesis (installed by scripts/lib/schemathesis.sh) driving /openapi/v1.json, stateful links included.
 * `npm test` runs it briefly (test/integration/openapi-fuzz.test.ts); `npm run fuzz` runs it long.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startApiProcess } from '../bench/support';
import { testEnv } from '../support/env';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import type { Mode } from '../../core/platform/mode';
import { NAMESPACES, TASK_QUEUES } from '../../core/temporal/names';
import { testDb } from '../support/resources';
import { bundleWorkflows, startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';

export interface FuzzOptions {
  seed: number;
  /** Schemathesis keeps generating (fuzzing and stateful phases) until this budget is spent. */
  maxTimeSeconds: number;
  /** Default 1: Hypothesis is not thread-safe, and with 2 workers Schemathesis 4.32.5 hit an internal cache error. */
  workers?: number;
  /** Where Schemathesis writes its JUnit report; none when omitted. */
  reportDir?: string;
  /** Which host to fuzz (default production): each serves its own routes, the sandbox its simulation routes too. */
  mode?: Mode;
}

export interface FuzzResult {
  exitCode: number;
  output: string;
}

const cacheDir = process.env.CLIENT_API_CACHE ?? path.join(os.homedir(), '.cache', 'client-public-api');
export const SCHEMATHESIS_PATH = path.join(cacheDir, 'bin', 'schemathesis');

/** Installs the pinned Schemathesis into its cache venv if it is not there yet (a no-op that takes a second if it is). */
export async function ensureSchemathesis(): Promise<void> {
  if (existsSync(SCHEMATHESIS_PATH)) return;
  const exitCode = await run('bash', ['scripts/fuzz.sh', '--install-only'], { inherit: true });
  if (exitCode.exitCode !== 0) throw new Error('installing Schemathesis failed (scripts/fuzz.sh --install-only)');
}

export async function fuzzTheApi(options: FuzzOptions): Promise<FuzzResult> {
  const mode = options.mode ?? 'production';
  const temporal = await startDevServer();
  // The real lifecycle worker: a recall (PATCH status=Closed) is an update to the debt's workflow.
  const lifecycle = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: NAMESPACES[mode],
    taskQueue: TASK_QUEUES.lifecycle,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle')),
    activities: createDebtLifecycleActivities({ db: testDb() }),
  });
  const lifecycleRunning = lifecycle.run();
  try {
    // No rate limit the fuzzer could reach: a 429 is documented, but it would stop the exploration.
    const tenant = await createTestTenant({ name: 'Fuzz Org', mode, hourlyLimit: 1e9, dailyLimit: 1e9 });
    const api = await startApiProcess({
      API_MODE: mode,
      DATABASE_URL: testEnv.databaseUrl,
      REDIS_URL: testEnv.redisUrl,
      TEMPORAL_ADDRESS: temporal.address,
      LOG_LEVEL: 'fatal',
      METRICS_PORT: '0', // the default port would collide with any other API on the machine
      // Every fuzzer request comes from 127.0.0.1: the per-address limit would turn its 401 checks into 429s.
      FAILED_AUTH_LIMIT: '1000000',
      // Uploaded documents (the fuzzer's multipart bodies) go to a scratch directory, not the checkout's .data/.
      DOCUMENT_DIR: path.join(os.tmpdir(), 'fuzz-documents'),
    });
    // Schemathesis keeps a crash cache (.schemathesis/) in its working directory: a scratch one, not the checkout.
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'fuzz-'));
    try {
      return await run(SCHEMATHESIS_PATH, schemathesisArgs(api.baseUrl, tenant.key, options), {
        cwd: scratch,
        // The upload's file media types (test/fuzz/schemathesis_hooks.py), imported as a module from this directory.
        env: { SCHEMATHESIS_HOOKS: 'schemathesis_hooks', PYTHONPATH: __dirname },
      });
    } finally {
      await api.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  } finally {
    lifecycle.shutdown();
    await lifecycleRunning;
    await temporal.teardown();
  }
}

function schemathesisArgs(baseUrl: string, key: string, options: FuzzOptions): string[] {
  return [
    'run',
    `${baseUrl}/openapi/v1.json`,
    ...['--url', baseUrl, '--header', `Authorization: Bearer ${key}`],
    ...['--seed', String(options.seed), '--max-time', String(options.maxTimeSeconds)],
    ...['--workers', String(options.workers ?? 1), '--generation-database', 'none', '--no-color'],
    // Every check but positive_data_acceptance: a request valid by the schema may still be refused by a rule no
    // schema can state (an unknown debtorId, a cursor of another list, a host that does not resolve, a state).
    ...['--checks', 'all', '--exclude-checks', 'positive_data_acceptance'],
    ...(options.reportDir ? ['--report', 'junit', '--report-dir', path.resolve(ROOT, options.reportDir)] : []),
  ];
}

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; inherit?: boolean },
): Promise<FuzzResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: options.inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ exitCode: code ?? 1, output: Buffer.concat(chunks).toString('utf8') }));
  });
}
