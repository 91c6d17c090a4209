/**
 * What the API's and the workers' configuration loaders share (config.ts, worker-config.ts): the validators of
 * values envalid has none for, the error that names every bad variable, and the variables both read.
 */
import { makeValidator, EnvMissingError, str } from 'envalid';
import { LOG_FORMATS } from './logger';
import type { Mode } from './mode';

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** envalid's reporter: each bad or missing variable as one line of `into`, so the loader throws them all at once. */
export function collectProblems(errors: Partial<Record<string, Error>>, into: string[]): void {
  for (const [name, err] of Object.entries(errors)) {
    if (!err) continue;
    into.push(
      err instanceof EnvMissingError ? `${name} is required but missing` : `${name} is invalid: ${err.message}`,
    );
  }
}

export function stripSlash(value: string): string {
  return value.replace(/\/+$/, '');
}

export function defaultDatabaseUrl(mode: Mode): string {
  return `postgres://client_api:client_api@127.0.0.1:5432/client_api_${mode}`;
}

/** An email address (a plain `local@domain`, no display name), or empty for none. */
export const emailOrEmpty = makeValidator<string>((input) => {
  const value = input.trim();
  if (value !== '' && !/^[^\s@<>",]+@[^\s@<>",]+\.[^\s@<>",]+$/.test(value))
    throw new Error('expected an email address such as support@collect.example, or nothing');
  return value;
});

export const portOrZero = makeValidator<number>((input) => {
  if (!/^\d{1,5}$/.test(input) || Number(input) > 65535) throw new Error('expected a port (1-65535), or 0 to disable');
  return Number(input);
});

export const hostPort = makeValidator<string>((input) => {
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(input)) throw new Error('expected host:port, e.g. 127.0.0.1:7233');
  return input;
});

export const postgresUrl = makeValidator<string>((input) => {
  if (!/^postgres(ql)?:\/\//.test(input)) throw new Error('expected a postgres:// URL');
  return input;
});

export const redisUrl = makeValidator<string>((input) => {
  if (!/^rediss?:\/\//.test(input)) throw new Error('expected a redis:// URL');
  return input;
});

/** Logging, read by every process. */
export const LOG_ENV = {
  LOG_LEVEL: str({ choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' }),
  LOG_FORMAT: str({ choices: LOG_FORMATS, default: 'auto', desc: 'json, pretty, or auto: pretty on a terminal' }),
};

/** Debtor notifications' mail, read by the API (the console's "Send a new portal link") and the lifecycle worker. */
export const NOTIFICATIONS_MAIL_ENV = {
  NOTIFICATIONS_MAIL_FROM: str({
    default: 'Account notifications <notifications@localhost>',
    desc: 'From header of the emails debtors are sent',
  }),
  NOTIFICATIONS_REPLY_TO: emailOrEmpty({
    default: '',
    desc: "Reply-To of debtor emails whose creditor's branding has no support email; empty: such emails invite no reply",
  }),
};

/** A whole number of at least `min`. */
export const wholeNumber = (min: number) =>
  makeValidator<number>((input) => {
    if (!/^\d{1,9}$/.test(input) || Number(input) < min) throw new Error(`expected a whole number of at least ${min}`);
    return Number(input);
  });

/** The lifecycle worker's SMTP pool for debtor notifications (core/notifications/mail.ts, mail-dispatcher.ts). */
export const SMTP_POOL_ENV = {
  SMTP_MAX_CONNECTIONS: wholeNumber(1)({ default: 5, desc: 'connections kept open to the SMTP relay for debtor mail' }),
  SMTP_MAX_MESSAGES_PER_SECOND: wholeNumber(0)({
    default: 0,
    desc: 'debtor emails handed to the SMTP relay per second at most (the relay’s own limit); 0: no limit',
  }),
};
