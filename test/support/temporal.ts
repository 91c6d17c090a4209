/**
 * Temporal for tests, from the binaries the bootstrap installs (the SDK's own download cannot reach its host here):
 * a dev server for everything a real server does, a time-skipping test server for business durations.
 * Both listen on ephemeral ports; callers `await env.teardown()`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  DefaultLogger,
  Runtime,
  bundleWorkflowCode,
  makeTelemetryFilterString,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { NAMESPACES, SEARCH_ATTRIBUTE_KEYS, SEARCH_ATTRIBUTES } from '../../core/temporal/names';
import { devServerStoreArgs } from '../../core/temporal/dev-server-store';
import { fairnessDevServerArgs } from '../../core/temporal/fairness';
import { testEnv } from './env';

/** The mode namespaces the dev server creates: the first is `env.namespace`, the one `env.client` uses. */
export const DEV_SERVER_NAMESPACES = [NAMESPACES.production, NAMESPACES.sandbox] as const;

/** The configured path (`<cache>/bin/<name>`), else the same binary inside the bootstrap's venv (`<cache>/venv/bin`). */
function binaryPath(configured: string): string {
  if (existsSync(configured)) return configured;
  const inVenv = join(dirname(dirname(configured)), 'venv', 'bin', basename(configured));
  if (existsSync(inVenv)) return inVenv;
  throw new Error(`${configured} not found (nor ${inVenv}): run \`npm run bootstrap\` first`);
}

export function temporalCliPath(): string {
  return binaryPath(testEnv.temporalCliPath);
}

export function testServerPath(): string {
  return binaryPath(testEnv.temporalTestServerPath);
}

let sdkLogsQuieted = false;

/**
 * SDK logs at WARN and above, the Rust core's at ERROR: a test worker's every state change logged at INFO would
 * bury the test report, and the core warns on every worker start that the Java time-skipping test server does not
 * advertise a capability newer servers have.
 */
export function quietSdkLogs(): void {
  if (sdkLogsQuieted) return;
  sdkLogsQuieted = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // Something created the runtime before the harness did: keep its logger.
  }
}

/** Start attempts before a server that does not answer in time fails the test. */
const STARTUP_ATTEMPTS = 3;

/**
 * The SDK gives a server it starts 5 seconds to answer (a constant in its core), and a busy 2-core machine with a cold
 * page cache sometimes needs more: such a start is retried (on a new port) instead of failing a test over it.
 */
async function withStartupRetries(start: () => Promise<TestWorkflowEnvironment>): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      const timedOut = /did not start within/.test(String((err as Error)?.message ?? err));
      if (!timedOut || attempt >= STARTUP_ATTEMPTS) throw err;
    }
  }
}

/**
 * A dev server with one namespace per mode and our search attributes registered in each; its state in memory, or
 * (`persisted`) in a file as `npm start` keeps it, removed at teardown: the benches measure what `npm start` runs.
 */
export async function startDevServer(options: { persisted?: boolean } = {}): Promise<TestWorkflowEnvironment> {
  quietSdkLogs();
  const [namespace, ...others] = DEV_SERVER_NAMESPACES;
  const stateDir = options.persisted ? mkdtempSync(join(tmpdir(), 'temporal-dev-')) : undefined;
  // Each attempt its own file: start-dev registers search attributes only on the namespaces it creates, so a retry
  // on a file the timed-out attempt had begun would find them created and leave them without.
  let attempt = 0;
  const storeArgs = () => (stateDir ? devServerStoreArgs(join(stateDir, `temporal-dev-${++attempt}.db`)) : []);
  let env: TestWorkflowEnvironment;
  try {
    env = await withStartupRetries(() =>
      TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'existing-path', path: temporalCliPath() },
          namespace,
          searchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS),
          log: { format: 'json', level: 'error' },
          extraArgs: [...others.flatMap((other) => ['--namespace', other]), ...fairnessDevServerArgs(), ...storeArgs()],
        },
      }),
    );
  } catch (err) {
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    throw err;
  }
  if (stateDir) {
    const teardown = env.teardown.bind(env);
    env.teardown = async () => {
      await teardown();
      rmSync(stateDir, { recursive: true, force: true });
    };
  }
  return env;
}

/**
 * `TestWorkflowEnvironment.createTimeSkipping` with connection options, which it does not pass on: the SDK's own
 * `create` (private in its types, the one the public factories call) takes them.
 */
const createWithConnectionOptions = (
  TestWorkflowEnvironment as unknown as { create(options: object): Promise<TestWorkflowEnvironment> }
).create.bind(TestWorkflowEnvironment);

/** The time-skipping test server (namespace `default`), with our search attributes added: it only has Custom*. */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  quietSdkLogs();
  const env = await withStartupRetries(() =>
    createWithConnectionOptions({
      server: { type: 'time-skipping', executable: { type: 'existing-path', path: testServerPath() } },
      supportsTimeSkipping: true,
      // The test server (Java gRPC) allows a client ping every 5 minutes; the client's default of one every 30 s earns
      // a GOAWAY ("too many pings") once an environment has lived a minute or two, and a call cut off by it could
      // leave time skipping locked and the test waiting for a timer that never fires.
      connectionOptions: { channelArgs: { 'grpc.keepalive_time_ms': 6 * 60_000 } },
    }),
  );
  try {
    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((name) => [name, keyword])),
    });
  } catch (err) {
    await env.teardown();
    throw err;
  }
  return env;
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/** Bundling takes seconds: each workflows path is bundled once per test run and the bundle shared. */
export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    bundle = bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
    bundles.set(workflowsPath, bundle);
    // A failed bundle is not cached: the next caller retries and sees the error itself.
    bundle.catch(() => bundles.delete(workflowsPath));
  }
  return bundle;
}

/** Task queues unique to one test, so workers of different tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
