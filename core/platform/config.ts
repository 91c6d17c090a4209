/**
 * Configuration: read from the environment once, at start-up, validated, and passed explicitly.
 * Nothing else in the codebase reads `process.env` (ARCHITECTURE.md, "Config").
 *
 * Every variable has a development default except where a wrong default would be dangerous in production.
 * A bad value stops start-up with a message that names the variable (see `ConfigError`).
 */
import { cleanEnv, num, str, port, url, makeValidator } from 'envalid';
import { NAMESPACES } from '../temporal/names';
import {
  collectProblems,
  ConfigError,
  defaultDatabaseUrl,
  hostPort,
  LOG_ENV,
  NOTIFICATIONS_MAIL_ENV,
  portOrZero,
  postgresUrl,
  redisUrl,
  stripSlash,
} from './config-env';
import { CONSOLE_ENV, consoleConfig, type ConsoleConfig } from './console-config';
import { DOCUMENT_ENV, documentStoreConfig, type DocumentStoreConfig } from './document-config';
import type { LogFormat } from './logger';
import { PAYMENT_ENV, paymentConfig, type PaymentConfig } from './payment-config';
import { parseTrustedProxies, type AddressRange } from './trusted-proxies';
import type { Mode } from './mode';
import { PORTAL_ENV, portalConfig, type PortalConfig } from './portal-config';
import { WEBHOOK_ENV, webhookConfig, type AppEnv, type LoadOptions, type WebhookConfig } from './webhook-config';
import type { WorkerConfig } from './worker-config';

export type { Mode };
export type { AppEnv, LoadOptions, WebhookConfig } from './webhook-config';
export { APP_ENVS } from './webhook-config';
export { ConfigError } from './config-env';

/** The API host's defaults: both hosts run side by side, each on its own ports. */
const DEFAULT_PORTS: Record<Mode, number> = { production: 3000, sandbox: 3001 };
/** Prometheus' customary exporter port, plus the mode's offset so both hosts run side by side. */
const DEFAULT_METRICS_PORTS: Record<Mode, number> = { production: 9464, sandbox: 9465 };

const trustedProxyList = makeValidator<AddressRange[]>((input) => parseTrustedProxies(input));

export interface Config {
  mode: Mode;
  /** `APP_ENV`: development and tests relax what only a real deployment must hold to (keys, test-mode hints). */
  appEnv: AppEnv;
  host: string;
  port: number;
  /** Internal port of the Prometheus endpoint (`GET /metrics`); 0 disables it. */
  metricsPort: number;
  /** Failed authentications allowed per client address and minute before the address gets 429. */
  failedAuthLimit: number;
  /** `TRUSTED_PROXIES`: the peers whose `X-Forwarded-For` names the client's address; none by default. */
  trustedProxies: AddressRange[];
  /** Anonymous sandbox sign-ups (`POST /sandbox/signup`) allowed per client address and hour. */
  sandboxSignupsPerHour: number;
  /** This host's public base URL (`{base_url}` or `{sandbox_url}` of the spec). */
  publicBaseUrl: string;
  productionBaseUrl: string;
  sandboxBaseUrl: string;
  /** `{error_base_url}`: problem `type` URIs are `<errorBaseUrl>/<code>`. */
  errorBaseUrl: string;
  databaseUrl: string;
  redisUrl: string;
  temporal: { address: string; namespace: string };
  logLevel: string;
  /** `LOG_FORMAT`: JSON lines, human-readable lines, or `auto` (pretty only when stdout is a terminal). */
  logFormat: LogFormat;
  /** Where `temporal server start-dev` serves its Web UI; printed for operators. */
  temporalUiUrl: string;
  webhooks: WebhookConfig;
  /** Where uploaded documents are kept (core/documents). */
  documents: DocumentStoreConfig;
  /** Outgoing mail (core/notifications/mail.ts): `SMTP_URL` and the `From` header, `MAIL_FROM`. */
  mail: { smtpUrl: string; from: string };
  /** The `From` of debtor notifications (`NOTIFICATIONS_MAIL_FROM`; docs/notifications.md). */
  debtorMailFrom: string;
  /** `NOTIFICATIONS_REPLY_TO`: the collector's address for debtors' replies, or '' for none. */
  debtorReplyTo: string;
  /** The client console's sessions and sign-in (docs/operators/configuration.md, "Console"). */
  console: ConsoleConfig;
  /** The debtors' payment processor: test mode, or Stripe on the production host (docs/payments.md). */
  payments: PaymentConfig;
  /** The debtor portal: sessions, second-factor tries, the collector's contact details (core/platform/portal-config.ts). */
  portal: PortalConfig;
}

/**
 * Validate the environment and build the config. Throws `ConfigError` naming every bad or missing variable,
 * instead of envalid's default of printing and exiting, so callers (and tests) decide what to do.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  const problems: string[] = [];
  // The mode picks other defaults, so read it first; an invalid value is still reported by cleanEnv below.
  const mode: Mode = env.API_MODE === 'sandbox' ? 'sandbox' : 'production';
  const port0 = DEFAULT_PORTS[mode];
  const e = cleanEnv(
    env,
    {
      API_MODE: str({ choices: ['production', 'sandbox'], default: 'production', desc: 'which host this is' }),
      HOST: str({ default: '127.0.0.1', desc: 'interface the API listens on' }),
      PORT: port({ default: port0, desc: 'port the API listens on' }),
      METRICS_PORT: portOrZero({ default: DEFAULT_METRICS_PORTS[mode], desc: 'internal /metrics port; 0 disables' }),
      FAILED_AUTH_LIMIT: num({ default: 20, desc: 'failed authentications per client address and minute' }),
      TRUSTED_PROXIES: trustedProxyList({ default: [], desc: 'addresses and CIDR ranges of trusted proxies' }),
      SANDBOX_SIGNUPS_PER_HOUR: num({ default: 10, desc: 'sandbox sign-ups per client address and hour' }),
      PUBLIC_BASE_URL: url({ default: `http://localhost:${env.PORT ?? port0}` }),
      PRODUCTION_BASE_URL: url({ default: 'http://localhost:3000' }),
      SANDBOX_BASE_URL: url({ default: 'http://localhost:3001' }),
      ERROR_BASE_URL: str({ default: '' }),
      DATABASE_URL: postgresUrl({ default: defaultDatabaseUrl(mode) }),
      REDIS_URL: redisUrl({ default: 'redis://127.0.0.1:6379' }),
      TEMPORAL_ADDRESS: hostPort({ default: '127.0.0.1:7233' }),
      TEMPORAL_NAMESPACE: str({ default: NAMESPACES[mode] }),
      TEMPORAL_UI_URL: url({ default: 'http://localhost:8233' }),
      ...LOG_ENV,
      ...WEBHOOK_ENV,
      ...DOCUMENT_ENV,
      ...PAYMENT_ENV,
      ...PORTAL_ENV,
      SMTP_URL: str({
        default: 'smtp://127.0.0.1:1025',
        desc: 'SMTP relay for outgoing mail (maildev in development)',
      }),
      ...CONSOLE_ENV,
      MAIL_FROM: str({ default: 'Client console <console@localhost>', desc: 'From header of outgoing mail' }),
      ...NOTIFICATIONS_MAIL_ENV,
    },
    { reporter: ({ errors }) => collectProblems(errors, problems) },
  );
  const webhooks = problems.length === 0 ? webhookConfig(e, options, problems) : undefined;
  const documents = problems.length === 0 ? documentStoreConfig(e, mode, problems) : undefined;
  const payments = problems.length === 0 ? paymentConfig(e, mode, problems) : undefined;
  if (problems.length > 0 || !webhooks || !documents || !payments) throw new ConfigError(problems);
  const publicBaseUrl = stripSlash(e.PUBLIC_BASE_URL);
  return {
    mode,
    appEnv: e.APP_ENV,
    host: e.HOST,
    port: e.PORT,
    metricsPort: e.METRICS_PORT,
    failedAuthLimit: e.FAILED_AUTH_LIMIT,
    trustedProxies: e.TRUSTED_PROXIES,
    sandboxSignupsPerHour: e.SANDBOX_SIGNUPS_PER_HOUR,
    publicBaseUrl,
    productionBaseUrl: stripSlash(e.PRODUCTION_BASE_URL),
    sandboxBaseUrl: stripSlash(e.SANDBOX_BASE_URL),
    errorBaseUrl: stripSlash(e.ERROR_BASE_URL || `${publicBaseUrl}/docs/errors`),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    temporalUiUrl: stripSlash(e.TEMPORAL_UI_URL),
    webhooks,
    documents,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    debtorMailFrom: e.NOTIFICATIONS_MAIL_FROM,
    debtorReplyTo: e.NOTIFICATIONS_REPLY_TO,
    console: consoleConfig(e, publicBaseUrl),
    payments,
    portal: portalConfig(e),
  };
}

/**
 * The one way a process entry point loads its configuration (API, workers, CLI, migrations, dev orchestrator):
 * `configOrExit(() => loadConfig())`. A bad configuration prints every problem and exits 78 (EX_CONFIG).
 */
export function configOrExit<T extends Config | WorkerConfig>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee docs/operators/configuration.md for every variable and its default.\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/**
 * The process environment, with variables an entry point decides itself on top (the CLI's `--mode`, the dev
 * orchestrator's per-child settings), so that only this module reads `process.env`.
 */
export function processEnv(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}
