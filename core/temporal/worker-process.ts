/**
 * The shared body of every worker process: one process per task queue, serving that queue in each configured mode's
 * namespace with that mode's database. The entry files in workers/ only wire: they pass the queue's workflow bundle
 * path, its activities and sidecars in, so core/ never imports workflows/ or activities/.
 */
import { Client } from '@temporalio/client';
import { existsSync, readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { setPriority } from 'node:os';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { collectDefaultMetrics, register } from 'prom-client';
import { configOrExit, processEnv, type Mode, type WebhookConfig } from '../platform/config';
import { loadWorkerConfig, type WorkerConfig } from '../platform/worker-config';
import { createDb, type Db } from '../platform/db';
import { createLogger, type Logger } from '../platform/logger';
import { createMetricsServer } from '../platform/metrics-server';
import { createSecretBox, type SecretBox } from '../platform/secret-box';
import { createDocumentStore } from '../documents/create-store';
import type { DocumentStore } from '../documents/store';
import type { TaskQueueName } from './names';
import { installSdkRuntime, toSdkLogger } from './sdk-logging';
import { fetchSdkMetrics, freeLoopbackPort } from './sdk-metrics';

export interface WorkerDeps {
  mode: Mode;
  db: Db;
  webhooks: WebhookConfig;
  /** Built once per process from the configured key, shared by the modes. */
  secretBox: SecretBox;
  /** A client in the mode's namespace, on the process's one connection. */
  client: Client;
  logger: Logger;
  /** The mode's document store. */
  documents: DocumentStore;
  /** Debtor notifications' SMTP relay, `From` and public URLs (the lifecycle worker sends them). */
  notifications: WorkerConfig['notifications'];
}

/** A mode's service that runs beside its worker (the webhook relay); resolves to the function that stops it. */
export type WorkerSidecar = (
  deps: WorkerDeps & { namespace: string; databaseUrl: string; connection: NativeConnection },
) => Promise<() => Promise<void>>;

export interface RunWorkerOptions {
  taskQueue: TaskQueueName;
  /** `require.resolve` of the queue's bundle entry in workflows/bundles/. */
  workflowsPath: string;
  /** `WORKER_MODES` when the variable is unset, e.g. `production,sandbox`. */
  defaultModes: string;
  /** Called once per mode: activities are built from injected deps (STYLE.md §7). */
  createActivities: (deps: WorkerDeps) => object;
  /**
   * Activities run at once per mode (`maxConcurrentActivityTaskExecutions`); each mode's database pool is sized from
   * it, so an activity never waits for a connection behind its siblings.
   */
  activitySlots?: number;
  /**
   * Local activities run at once per mode (`maxConcurrentLocalActivityExecutions`); the SDK's default when unset. When
   * set, the mode's database pool counts them too, as it counts activity slots.
   */
  localActivitySlots?: number;
  /**
   * Database connections per mode the sidecar needs beyond the usual (its batch transaction and sweep): the lifecycle
   * worker's mail dispatcher, one per send in flight, so activities never wait behind it for a connection.
   */
  sidecarConnections?: (config: WorkerConfig) => number;
  /** Workflow tasks run at once per mode (`maxConcurrentWorkflowTaskExecutions`); the SDK's default when unset. */
  workflowTaskSlots?: number;
  /**
   * Workflow runs kept in memory per mode (`maxCachedWorkflows`); the SDK's default scales with the machine's memory.
   * A queue whose runs mostly sleep for days (debt lifecycles) caps it: an evicted run is replayed from its short
   * history when it next wakes, and the worker's memory stops growing with the number of open runs.
   */
  cachedWorkflows?: number;
  /** Started once per mode after its worker is created, stopped after the workers have drained. */
  startSidecar?: WorkerSidecar;
  /**
   * The process's CPU priority (a Unix nice value, 0–19) unless `WORKER_NICE` sets one: 0, as everything else, when
   * unset. Bulk work (placements' imports) runs lower, so it takes only the CPU that everyone else's work leaves.
   */
  defaultNice?: number;
}

/**
 * The lifecycle worker's workflow cache per mode: debts sleep on timers for weeks, so an evicted run is replayed from
 * its short history when it next wakes, and memory stays flat however many debts are open (docs/operators/performance.md).
 */
export const LIFECYCLE_CACHED_WORKFLOWS = 500;

/**
 * Local activities the lifecycle worker runs at once per mode: a new debt's first load (workflows/debt-lifecycle.ts)
 * is one, and each holds a database connection, so the mode's pool is sized from this (the SDK's default, 100, would
 * have them queue on a pool of 25).
 */
export const LIFECYCLE_LOCAL_ACTIVITY_SLOTS = 10;

/** Drain time for in-flight activities after a stop signal; at least the webhook attempt timeout (10 s). */
const SHUTDOWN_GRACE_TIME = '15s';
/**
 * How long a workflow task waits on the queue of the worker that last ran its workflow (its cache) before any worker
 * may take it. A task normally starts there in milliseconds; when that worker has died (a SIGKILL, a lost machine) the
 * task waits this long before another worker replays the history. The SDK's default (10 s) equals a portal or API
 * trigger's whole wait (TRIGGER_TIMEOUT_MS): a debtor's click just after a worker died would answer "retry shortly".
 */
const STICKY_FAILOVER_TIME = '3s';
const DEFAULT_ACTIVITY_SLOTS = 20;
/** Connections beyond the activity slots: the sidecar's batch transaction and sweep, the diagnostic probe's margin. */
const SIDECAR_CONNECTIONS = 5;

/** A worker process's database pool per mode: one connection per activity slot (local ones too), plus the sidecars'. */
export function workerPool(
  activitySlots: number,
  localActivitySlots = 0,
  extraSidecarConnections = 0,
): { min: number; max: number } {
  return { min: 0, max: activitySlots + localActivitySlots + SIDECAR_CONNECTIONS + extraSidecarConnections };
}
/** After this the SDK gives up on a graceful stop and the process exits non-zero. */
const SHUTDOWN_FORCE_TIME = '30s';

/** Runs the worker process to its end: exits 0 after a graceful stop, 1 on failure, 78 on bad configuration. */
export async function runWorker(options: RunWorkerOptions): Promise<never> {
  const config = configOrExit(() => loadWorkerConfig(processEnv(), options.defaultModes, options.defaultNice));
  const logger = createLogger({
    level: config.logLevel,
    name: `worker-${options.taskQueue}`,
    format: config.logFormat,
  });
  const stopRequested = onStopSignal(logger);
  lowerCpuPriority(config.nice, logger);
  try {
    await serve(options, config, logger, stopRequested);
    logger.info({ taskQueue: options.taskQueue }, 'shutdown complete');
    process.exit(0);
  } catch (err) {
    logger.fatal({ err, taskQueue: options.taskQueue }, 'worker failed');
    process.exit(1);
  }
}

async function serve(options: RunWorkerOptions, config: WorkerConfig, logger: Logger, stop: Promise<void>) {
  const { taskQueue } = options;
  const sdkMetricsPort = config.metricsPort === 0 ? undefined : await freeLoopbackPort();
  installSdkRuntime(logger, sdkMetricsPort);
  const metricsServer = startMetricsServer(config, logger, sdkMetricsPort);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const secretBox = createSecretBox(config.webhooks.secretKeys);
  const shared = { webhooks: config.webhooks, secretBox, logger, notifications: config.notifications };
  const activitySlots = options.activitySlots ?? DEFAULT_ACTIVITY_SLOTS;
  const pool = workerPool(activitySlots, options.localActivitySlots, options.sidecarConnections?.(config) ?? 0);
  const modes = config.modes.map((modeConfig) => ({
    ...modeConfig,
    ...shared,
    db: createDb(modeConfig.databaseUrl, { pool, logger }),
    client: new Client({ connection, namespace: modeConfig.namespace }),
    documents: createDocumentStore(modeConfig.documents),
  }));
  try {
    const workflowBundle = await bundleOnce(options.workflowsPath, taskQueue, logger);
    const workerOptions: Pick<
      WorkerOptions,
      'connection' | 'workflowBundle' | 'shutdownGraceTime' | 'shutdownForceTime' | 'stickyQueueScheduleToStartTimeout'
    > = {
      connection,
      workflowBundle,
      shutdownGraceTime: SHUTDOWN_GRACE_TIME,
      shutdownForceTime: SHUTDOWN_FORCE_TIME,
      stickyQueueScheduleToStartTimeout: STICKY_FAILOVER_TIME,
    };
    const workers = await Promise.all(
      modes.map(({ namespace, ...deps }) =>
        Worker.create({
          ...workerOptions,
          namespace,
          taskQueue,
          activities: options.createActivities(deps),
          maxConcurrentActivityTaskExecutions: activitySlots,
          ...(options.cachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.cachedWorkflows }),
          ...(options.localActivitySlots === undefined
            ? {}
            : { maxConcurrentLocalActivityExecutions: options.localActivitySlots }),
          ...(options.workflowTaskSlots === undefined
            ? {}
            : { maxConcurrentWorkflowTaskExecutions: options.workflowTaskSlots }),
        }),
      ),
    );
    const { startSidecar } = options;
    const sidecars = startSidecar ? await Promise.all(modes.map((m) => startSidecar({ ...m, connection }))) : [];
    const running = workers.map((worker) => worker.runUntil(stop));
    for (const { mode, namespace } of modes) {
      logger.info({ taskQueue, namespace, mode }, `polling task queue ${taskQueue} in namespace ${namespace}`);
    }
    await Promise.all(running);
    await Promise.allSettled(sidecars.map((stopSidecar) => stopSidecar()));
    // Only once every worker has stopped: closing under a live worker throws and would hide the first error.
    await connection.close();
  } finally {
    metricsServer?.close();
    await Promise.allSettled(modes.map(({ db }) => db.destroy()));
  }
}

/**
 * The worker's own metrics (deliveries, lifecycle transitions, outbox lag, the reconciler's fixes, the retention
 * purge) and Node's process metrics, in prom-client's default registry, followed by the Temporal SDK's worker
 * metrics, on an internal port when one is configured (docs/operators/operations.md lists them).
 */
function startMetricsServer(config: WorkerConfig, logger: Logger, sdkMetricsPort?: number): Server | undefined {
  if (config.metricsPort === 0 || sdkMetricsPort === undefined) return undefined;
  collectDefaultMetrics();
  const server = createMetricsServer(register, logger, () => fetchSdkMetrics(sdkMetricsPort));
  server.listen(config.metricsPort, config.metricsHost, () =>
    logger.info({ port: config.metricsPort }, 'metrics listening (internal)'),
  );
  return server;
}

/** Bundling takes seconds: done once per process, and the bundle is shared by the modes' workers. */
async function bundleOnce(workflowsPath: string, taskQueue: string, logger: Logger) {
  const startedAt = Date.now();
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    // webpack's multi-line build stats are noise in a JSON log; keep its warnings and errors.
    logger: toSdkLogger(logger.child({ component: 'workflow-bundler' }, { level: 'warn' })),
  });
  logger.info({ taskQueue, durationMs: Date.now() - startedAt }, 'workflow bundle ready');
  return bundle;
}

/**
 * Lowers the process's CPU priority to `nice` before it starts its threads (the Temporal SDK's, libuv's), which
 * inherit it; the threads already running (V8's) are lowered one by one where Linux lists them. Lowering needs no
 * privilege; a platform that refuses leaves the process as it was, said in the log.
 */
function lowerCpuPriority(nice: number, logger: Logger): void {
  if (nice === 0) return;
  try {
    const threads = existsSync('/proc/self/task') ? readdirSync('/proc/self/task').map(Number) : [0];
    for (const thread of threads) setPriority(thread, nice);
    logger.info({ nice }, 'running at a lower CPU priority than the other processes');
  } catch (err) {
    logger.warn({ err, nice }, 'could not lower the CPU priority; running at the usual one');
  }
}

/**
 * Resolves on the first SIGINT/SIGTERM. Later signals are ignored rather than cutting the drain short: Ctrl-C in a
 * terminal reaches the whole process group while an orchestrator may forward its own; shutdownForceTime bounds it.
 */
function onStopSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let requested = false;
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, requested ? 'already draining' : 'shutdown requested: draining in-flight tasks');
      requested = true;
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
