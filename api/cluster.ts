/**
 * Every core used: with `API_PROCESSES` above 1 the API runs as a node:cluster primary that forks that many workers,
 * which share the listening port (the primary hands connections out round-robin). The primary serves no requests:
 * it replaces a worker that dies, forwards SIGTERM/SIGINT so each worker drains its connections, and answers the
 * internal /metrics port with the sum over its workers (prom-client's AggregatorRegistry), so one scrape covers all.
 */
import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Server } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '../core/platform/logger';
import { createMetricsServer } from '../core/platform/metrics-server';

/** After a stop signal, workers get this long to drain before the primary kills them. */
const STOP_TIMEOUT_MS = 12_000;
/** A worker that dies sooner than this after its start is restarted after a pause, so a crash loop does not spin. */
const EARLY_DEATH_MS = 5_000;
const RESTART_PAUSE_MS = 1_000;

/** `API_PROCESSES`: a positive integer; unset or empty means one per core. Anything else exits 78 like bad config. */
export function apiProcessCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.API_PROCESSES?.trim();
  if (!raw) return os.availableParallelism();
  const count = Number(raw);
  if (Number.isInteger(count) && count >= 1 && count <= 256) return count;
  process.stderr.write(`API_PROCESSES must be an integer from 1 to 256 (got "${raw}")\n`);
  process.exit(78); // EX_CONFIG, as configOrExit
}

export const isClusterWorker = (): boolean => cluster.isWorker;

/** A registry whose `metrics()` is the sum over the cluster's workers, so the ordinary metrics server can serve it. */
class ClusterRegistry extends AggregatorRegistry<typeof Registry.PROMETHEUS_CONTENT_TYPE> {
  override metrics(): Promise<string> {
    return this.clusterMetrics();
  }
}

/** In a worker: answer the primary's metrics requests from this app's registry (the primary serves the port). */
export function shareMetricsWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // its constructor installs the worker's IPC listener
}

export interface PrimaryOptions {
  processes: number;
  logger: Logger;
  metrics?: { port: number; host: string };
}

/** Runs the primary: forks the workers, keeps their number up, stops them all on SIGTERM/SIGINT, then exits. */
export function runPrimary({ processes, logger, metrics }: PrimaryOptions): void {
  const startedAt = new Map<Worker, number>();
  let stopping = false;
  const fork = () => startedAt.set(cluster.fork(), Date.now());

  cluster.on('online', (worker) => logger.info({ workerPid: worker.process.pid }, 'api worker started'));
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) exit(0);
      return;
    }
    logger.error({ workerPid: worker.process.pid, code, signal }, 'api worker died: starting a replacement');
    if (lived < EARLY_DEATH_MS) setTimeout(fork, RESTART_PAUSE_MS);
    else fork();
  });

  const metricsServer = metrics && metrics.port > 0 ? serveClusterMetrics(metrics, logger) : undefined;
  const exit = (code: number) => {
    metricsServer?.close();
    logger.info({ code }, 'api primary exiting');
    logger.flush(() => process.exit(code));
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: startedAt.size }, 'api shutting down: stopping workers');
    if (startedAt.size === 0) exit(0);
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
      exit(1);
    }, STOP_TIMEOUT_MS).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  logger.info({ processes }, 'api primary forking workers');
  for (let i = 0; i < processes; i++) fork();
}

function serveClusterMetrics(metrics: { port: number; host: string }, logger: Logger): Server {
  const server = createMetricsServer(new ClusterRegistry(), logger);
  server.listen(metrics.port, metrics.host, () =>
    logger.info({ port: metrics.port }, 'metrics listening (internal, summed over the workers)'),
  );
  return server;
}
