/**
 * Configuration: read from the environment once, at start-up, validated, and passed explicitly.
 * Nothing else in the codebase reads `process.env` (ARCHITECTURE.md, "Config").
 *
 * Every variable has a development default except where a wrong default would be dangerous in production.
 * A bad value stops start-up with a message that names the variable (see `ConfigError`).
 */
import { cleanEnv, num, str, port, url, makeValidator, EnvMissingError } from 'envalid';
import { NAMESPACES } from '../temporal/names';
import { DOCUMENT_ENV, documentStoreConfig, type DocumentStoreConfig } from './document-config';
import { LOG_FORMATS, type LogFormat } from './logger';
import { PAYMENT_ENV, paymentConfig, type PaymentConfig } from './payment-config';
import { parseTrustedProxies, type AddressRange } from './trusted-proxies';
import type { Mode } from './mode';
import { PORTAL_ENV, portalConfig, type PortalConfig } from './portal-config';
import { WEBHOOK_ENV, webhookConfig, type LoadOptions, type WebhookConfig } from './webhook-config';

export type { Mode };
export type { AppEnv, LoadOptions, WebhookConfig } from './webhook-config';
export { APP_ENVS } from './webhook-config';

export interface Config {
  mode: Mode;
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
  /** The client console's sessions and sign-in (docs/operators/configuration.md, "Console"). */
  console: ConsoleConfig;
  /** The debtors' payment processor: test mode, or Stripe on the production host (docs/payments.md). */
  payments: PaymentConfig;
  /** The debtor portal: sessions, second-factor tries, the collector's contact details (core/platform/portal-config.ts). */
  portal: PortalConfig;
}

export interface ConsoleConfig {
  sessionIdleTimeoutMs: number;
  sessionAbsoluteLifetimeMs: number;
  /** `Secure` (and the `__Host-` prefix) on the session cookie: outside development, or on an https host. */
  secureCookies: boolean;
  /** Sign-in link requests per email, and per client address, in one hour. */
  signInRequestsPerHour: number;
}

/** Debtor notifications' mail, read by the API (the console's "Send a new portal link") and the lifecycle worker. */
const NOTIFICATIONS_MAIL_ENV = {
  NOTIFICATIONS_MAIL_FROM: str({
    default: 'Debt recovery <notifications@localhost>',
    desc: 'From header of the emails debtors are sent',
  }),
};

const DEFAULT_PORTS: Record<Mode, number> = { production: 3000, sandbox: 3001 };
/** Prometheus' customary exporter port, plus the mode's offset so both hosts run side by side. */
const DEFAULT_METRICS_PORTS: Record<Mode, number> = { production: 9464, sandbox: 9465 };

const portOrZero = makeValidator<number>((input) => {
  if (!/^\d{1,5}$/.test(input) || Number(input) > 65535) throw new Error('expected a port (1-65535), or 0 to disable');
  return Number(input);
});

export function defaultDatabaseUrl(mode: Mode): string {
  return `postgres://client_api:client_api@127.0.0.1:5432/client_api_${mode}`;
}

const trustedProxyList = makeValidator<AddressRange[]>((input) => parseTrustedProxies(input));

const hostPort = makeValidator<string>((input) => {
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(input)) throw new Error('expected host:port, e.g. 127.0.0.1:7233');
  return input;
});

const postgresUrl = makeValidator<string>((input) => {
  if (!/^postgres(ql)?:\/\//.test(input)) throw new Error('expected a postgres:// URL');
  return input;
});

const redisUrl = makeValidator<string>((input) => {
  if (!/^rediss?:\/\//.test(input)) throw new Error('expected a redis:// URL');
  return input;
});

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function stripSlash(value: string): string {
  return value.replace(/\/+$/, '');
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
      LOG_LEVEL: str({ choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' }),
      LOG_FORMAT: str({ choices: LOG_FORMATS, default: 'auto', desc: 'json, pretty, or auto: pretty on a terminal' }),
      ...WEBHOOK_ENV,
      ...DOCUMENT_ENV,
      ...PAYMENT_ENV,
      ...PORTAL_ENV,
      SMTP_URL: str({
        default: 'smtp://127.0.0.1:1025',
        desc: 'SMTP relay for outgoing mail (maildev in development)',
      }),
      SESSION_IDLE_MINUTES: num({ default: 30, desc: 'a console session ends after this long unused' }),
      SESSION_MAX_HOURS: num({ default: 12, desc: 'a console session ends this long after sign-in, used or not' }),
      SIGN_IN_REQUESTS_PER_HOUR: num({ default: 5, desc: 'sign-in link requests per email and per address, hourly' }),
      MAIL_FROM: str({ default: 'Client console <console@localhost>', desc: 'From header of outgoing mail' }),
      ...NOTIFICATIONS_MAIL_ENV,
    },
    { reporter: ({ errors }) => collect(errors, problems) },
  );
  const webhooks = problems.length === 0 ? webhookConfig(e, options, problems) : undefined;
  const documents = problems.length === 0 ? documentStoreConfig(e, mode, problems) : undefined;
  const payments = problems.length === 0 ? paymentConfig(e, mode, problems) : undefined;
  if (problems.length > 0 || !webhooks || !documents || !payments) throw new ConfigError(problems);
  const publicBaseUrl = stripSlash(e.PUBLIC_BASE_URL);
  return {
    mode,
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
    console: {
      sessionIdleTimeoutMs: e.SESSION_IDLE_MINUTES * 60_000,
      sessionAbsoluteLifetimeMs: e.SESSION_MAX_HOURS * 3_600_000,
      secureCookies: publicBaseUrl.startsWith('https:') || (e.APP_ENV !== 'development' && e.APP_ENV !== 'test'),
      signInRequestsPerHour: e.SIGN_IN_REQUESTS_PER_HOUR,
    },
    payments,
    portal: portalConfig(e),
  };
}

function collect(errors: Partial<Record<string, Error>>, into: string[]): void {
  for (const [name, err] of Object.entries(errors)) {
    if (!err) continue;
    into.push(
      err instanceof EnvMissingError ? `${name} is required but missing` : `${name} is invalid: ${err.message}`,
    );
  }
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
  webhooks: WebhookConfig;
  /** Debtor notifications sent by the lifecycle worker: the SMTP relay, their `From`, and each mode's public URL. */
  notifications: { smtpUrl: string; from: string; publicBaseUrls: Record<Mode, string> };
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

/**
 * Worker configuration. `WORKER_MODES` picks the modes; `PRODUCTION_DATABASE_URL`, `SANDBOX_DATABASE_URL`,
 * `PRODUCTION_TEMPORAL_NAMESPACE` and `SANDBOX_TEMPORAL_NAMESPACE` override the per-mode defaults.
 */
export function loadWorkerConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaultModes = 'production,sandbox',
): WorkerConfig {
  const problems: string[] = [];
  const e = cleanEnv(
    env,
    {
      WORKER_MODES: str({ default: defaultModes }),
      METRICS_PORT: portOrZero({ default: 0, desc: 'internal /metrics port of the worker; 0 disables' }),
      METRICS_HOST: str({ default: '127.0.0.1', desc: 'interface of the internal /metrics port' }),
      PRODUCTION_DATABASE_URL: postgresUrl({ default: defaultDatabaseUrl('production') }),
      SANDBOX_DATABASE_URL: postgresUrl({ default: defaultDatabaseUrl('sandbox') }),
      PRODUCTION_TEMPORAL_NAMESPACE: str({ default: NAMESPACES.production }),
      SANDBOX_TEMPORAL_NAMESPACE: str({ default: NAMESPACES.sandbox }),
      REDIS_URL: redisUrl({ default: 'redis://127.0.0.1:6379' }),
      TEMPORAL_ADDRESS: hostPort({ default: '127.0.0.1:7233' }),
      LOG_LEVEL: str({ choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' }),
      LOG_FORMAT: str({ choices: LOG_FORMATS, default: 'auto', desc: 'json, pretty, or auto: pretty on a terminal' }),
      ...WEBHOOK_ENV,
      ...DOCUMENT_ENV,
      ...NOTIFICATIONS_MAIL_ENV,
      SMTP_URL: str({ default: 'smtp://127.0.0.1:1025', desc: 'SMTP relay for debtor notifications' }),
      PRODUCTION_BASE_URL: url({ default: 'http://localhost:3000' }),
      SANDBOX_BASE_URL: url({ default: 'http://localhost:3001' }),
    },
    { reporter: ({ errors }) => collect(errors, problems) },
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
    webhooks,
    notifications: {
      smtpUrl: e.SMTP_URL,
      from: e.NOTIFICATIONS_MAIL_FROM,
      publicBaseUrls: { production: stripSlash(e.PRODUCTION_BASE_URL), sandbox: stripSlash(e.SANDBOX_BASE_URL) },
    },
  };
}
