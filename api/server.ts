/**
 * Process entry point for one API host (production or sandbox): build the app, listen, shut down cleanly. With
 * `API_PROCESSES` above 1 (the default is one per core) this process becomes a cluster primary (api/cluster.ts) and
 * each of its workers runs `serve`.
 */
import type { Server } from 'node:http';
import { configOrExit, loadConfig, type Config } from '../core/platform/config';
import { createDb } from '../core/platform/db';
import { asyncStdout, createLogger, type Logger } from '../core/platform/logger';
import { createRedis } from '../core/platform/redis';
import { createSecretBox } from '../core/platform/secret-box';
import { checkTemporal, closeTemporalClient, createTemporalClient } from '../core/temporal/connection';
import { createDebtTriggers } from '../core/lifecycle/triggers';
import { createDeliveryRetryNow } from '../core/webhooks/delivery-retry-now';
import { createPaymentProcessor } from '../core/payments/create-processor';
import { createPlacementRuns } from '../core/placements/placement-runs';
import { createSandboxResets } from '../core/sandbox/resets';
import { createApp } from './app';
import { answerUnparsableRequests } from './http/client-errors';
import { createMetricsServer } from '../core/platform/metrics-server';
import { apiProcessCount, isClusterWorker, runPrimary, shareMetricsWithPrimary } from './cluster';

function main(): void {
  const config = configOrExit(() => loadConfig());
  const logger = createLogger({
    level: config.logLevel,
    name: `api-${config.mode}`,
    destination: asyncStdout(),
    format: config.logFormat,
  });
  const processes = apiProcessCount();
  if (isClusterWorker() || processes === 1) {
    serve(config, logger).catch((err: unknown) => {
      process.stderr.write(`api failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
  } else {
    runPrimary({ processes, logger, metrics: { port: config.metricsPort, host: config.host } });
  }
}

async function serve(config: Config, logger: Logger): Promise<void> {
  const db = createDb(config.databaseUrl, { logger });
  const redis = createRedis(config.redisUrl);
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis error'));
  const temporal = createTemporalClient(config.temporal.address, config.temporal.namespace);
  const secretBox = createSecretBox(config.webhooks.secretKeys);
  const debtTriggers = createDebtTriggers({ db, client: temporal, mode: config.mode });
  const { app, metrics } = createApp({
    config,
    logger,
    db,
    redis,
    secretBox,
    debtTriggers,
    paymentProcessor: createPaymentProcessor({
      mode: config.mode,
      payments: config.payments,
      db,
      triggers: debtTriggers,
      temporal,
    }),
    sandboxResets: config.mode === 'sandbox' ? createSandboxResets({ client: temporal }) : undefined,
    placementRuns: createPlacementRuns({ client: temporal }),
    deliveryRetryNow: createDeliveryRetryNow({ client: temporal }),
    checkTemporal: () => checkTemporal(temporal),
  });
  // In a cluster the primary serves the metrics port and asks each worker for its registry.
  if (isClusterWorker()) shareMetricsWithPrimary(metrics.registry);
  const ownMetricsPort = isClusterWorker() ? 0 : config.metricsPort;
  const metricsServer = ownMetricsPort > 0 ? createMetricsServer(metrics.registry, logger) : undefined;
  metricsServer?.listen(ownMetricsPort, config.host, () => {
    logger.info({ port: ownMetricsPort }, 'metrics listening (internal)');
  });

  const server: Server = app.listen(config.port, config.host, () => {
    logger.info({ mode: config.mode, url: config.publicBaseUrl, port: config.port }, 'api listening');
  });
  server.keepAliveTimeout = 65_000;
  answerUnparsableRequests(server, config.errorBaseUrl);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    metricsServer?.close();
    logger.info({ signal }, 'api shutting down');
    server.close(() => {
      void Promise.allSettled([db.destroy(), redis.quit(), closeTemporalClient(temporal)]).then(() => {
        logger.info('api shutdown complete');
        logger.flush(() => process.exit(0));
      });
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
