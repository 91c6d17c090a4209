/**
 * The workers' configuration: a worker process serves one task queue for one or more modes, each with its own
 * database, Temporal namespace and document store (the API reads config.ts instead).
 */
import { cleanEnv, makeValidator, str, url } from 'envalid';
import { NAMESPACES } from '../temporal/names';
import {
  collectProblems,
  ConfigError,
  defaultDatabaseUrl,
  hostPort,
  LOG_ENV,
  NOTIFICATIONS_MAIL_ENV,
  portOrZero,
  SMTP_POOL_ENV,
  postgresUrl,
  redisUrl,
  stripSlash,
} from './config-env';
import { DOCUMENT_ENV, documentStoreConfig, type DocumentStoreConfig } from './document-config';
import type { LogFormat } from './logger';
import type { Mode } from './mode';
import { WEBHOOK_ENV, webhookConfig, type WebhookConfig } from './webhook-config';

/** Worker processes serve one task queue for one or more modes; each mode has its own database and namespace. */
export interface WorkerModeConfig {
  mode: Mode;
  databaseUrl: string;
  namespace: string;
  /** The mode's document store (the retention purge sweeps its orphan objects). */
  documents: DocumentStoreConfig;
}

export interface WorkerConfig {
  modes: WorkerModeConfig[];
  /** Internal port of the worker's Prometheus endpoint (`GET /metrics`) on `metricsHost`; 0 (the default) disables. */
  metricsPort: number;
  metricsHost: string;
  redisUrl: string;
  temporalAddress: string;
  logLevel: string;
  /** `LOG_FORMAT`: JSON lines, human-readable lines, or `auto` (pretty only when stdout is a terminal). */
  logFormat: LogFormat;
  /**
   * `WORKER_NICE`: the process's CPU priority as a Unix nice value, 0 (as everything else) to 19 (only what the
   * others leave); each worker process has its own default (the placements worker's is lower priority).
   */
  nice: number;
  webhooks: WebhookConfig;
  /** Debtor notifications sent by the lifecycle worker: the SMTP relay, their `From`, and each mode's public URL. */
  notifications: {
    smtpUrl: string;
    from: string;
    /** `NOTIFICATIONS_REPLY_TO`: the collector's address for replies, or '' for none. */
    replyTo: string;
    /** The SMTP pool: connections kept open, and the relay's rate (messages per second, 0: no limit). */
    pool: { maxConnections: number; maxMessagesPerSecond: number };
    publicBaseUrls: Record<Mode, string>;
  };
}

function parseModeList(input: string): Mode[] {
  const modes = input
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (modes.length === 0 || modes.some((m) => m !== 'production' && m !== 'sandbox')) {
    throw new Error('expected a comma-separated list of production and/or sandbox');
  }
  return [...new Set(modes)] as Mode[];
}

/** A Unix nice value a process may lower itself to without privileges: 0 to 19. */
const niceValue = makeValidator<number>((input) => {
  if (!/^\d{1,2}$/.test(input) || Number(input) > 19) throw new Error('expected a whole number from 0 to 19');
  return Number(input);
});

/**
 * Worker configuration. `WORKER_MODES` picks the modes; `PRODUCTION_DATABASE_URL`, `SANDBOX_DATABASE_URL`,
 * `PRODUCTION_TEMPORAL_NAMESPACE` and `SANDBOX_TEMPORAL_NAMESPACE` override the per-mode defaults.
 */
export function loadWorkerConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaultModes = 'production,sandbox',
  defaultNice = 0,
): WorkerConfig {
  const problems: string[] = [];
  const e = cleanEnv(
    env,
    {
      WORKER_MODES: str({ default: defaultModes }),
      METRICS_PORT: portOrZero({ default: 0, desc: 'internal /metrics port of the worker; 0 disables' }),
      METRICS_HOST: str({ default: '127.0.0.1', desc: 'interface of the internal /metrics port' }),
      WORKER_NICE: niceValue({ default: defaultNice, desc: 'CPU priority of the worker process (nice, 0–19)' }),
      PRODUCTION_DATABASE_URL: postgresUrl({ default: defaultDatabaseUrl('production') }),
      SANDBOX_DATABASE_URL: postgresUrl({ default: defaultDatabaseUrl('sandbox') }),
      PRODUCTION_TEMPORAL_NAMESPACE: str({ default: NAMESPACES.production }),
      SANDBOX_TEMPORAL_NAMESPACE: str({ default: NAMESPACES.sandbox }),
      REDIS_URL: redisUrl({ default: 'redis://127.0.0.1:6379' }),
      TEMPORAL_ADDRESS: hostPort({ default: '127.0.0.1:7233' }),
      ...LOG_ENV,
      ...WEBHOOK_ENV,
      ...DOCUMENT_ENV,
      ...NOTIFICATIONS_MAIL_ENV,
      ...SMTP_POOL_ENV,
      SMTP_URL: str({ default: 'smtp://127.0.0.1:1025', desc: 'SMTP relay for debtor notifications' }),
      PRODUCTION_BASE_URL: url({ default: 'http://localhost:3000' }),
      SANDBOX_BASE_URL: url({ default: 'http://localhost:3001' }),
    },
    { reporter: ({ errors }) => collectProblems(errors, problems) },
  );
  let modes: Mode[] = [];
  try {
    modes = parseModeList(e.WORKER_MODES);
  } catch (err) {
    problems.push(`WORKER_MODES is invalid: ${(err as Error).message}`);
  }
  const webhooks = webhookConfig(e, {}, problems);
  const byMode = {
    production: { databaseUrl: e.PRODUCTION_DATABASE_URL, namespace: e.PRODUCTION_TEMPORAL_NAMESPACE },
    sandbox: { databaseUrl: e.SANDBOX_DATABASE_URL, namespace: e.SANDBOX_TEMPORAL_NAMESPACE },
  };
  const modeConfigs =
    problems.length === 0
      ? modes.map((mode) => ({ mode, ...byMode[mode], documents: documentStoreConfig(e, mode, problems) }))
      : [];
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    modes: modeConfigs,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    redisUrl: e.REDIS_URL,
    temporalAddress: e.TEMPORAL_ADDRESS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    nice: e.WORKER_NICE,
    webhooks,
    notifications: {
      smtpUrl: e.SMTP_URL,
      from: e.NOTIFICATIONS_MAIL_FROM,
      replyTo: e.NOTIFICATIONS_REPLY_TO,
      pool: { maxConnections: e.SMTP_MAX_CONNECTIONS, maxMessagesPerSecond: e.SMTP_MAX_MESSAGES_PER_SECOND },
      publicBaseUrls: { production: stripSlash(e.PRODUCTION_BASE_URL), sandbox: stripSlash(e.SANDBOX_BASE_URL) },
    },
  };
}
