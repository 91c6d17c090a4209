/** Temporal SDK logs (worker, workflow, activity, bundler) through our pino logger, as one JSON stream. */
import { Runtime } from '@temporalio/worker';
import type { LogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import type { Logger } from '../platform/logger';
import { sdkPrometheusExporter } from './sdk-metrics';

/**
 * SDK, workflow and activity logs through our pino logger; our own signal handler decides when to drain. With
 * `metricsPort`, the SDK's worker metrics are exported on that loopback port (sdk-metrics.ts).
 */
export function installSdkRuntime(logger: Logger, metricsPort?: number): void {
  Runtime.install({
    logger: toSdkLogger(logger.child({ component: 'temporal-sdk' })),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(metricsPort !== undefined && { metrics: sdkPrometheusExporter(metricsPort) }),
    },
  });
}

const PINO_LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The SDK's logger interface over pino, so worker, workflow and activity logs share one JSON stream. */
export function toSdkLogger(logger: Logger): SdkLogger {
  const log = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    // pino serialises errors under `err`; the SDK passes them as `error`.
    const { error, ...rest } = meta;
    logger[PINO_LEVELS[level]](error === undefined ? rest : { ...rest, err: error }, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
