/**
 * Structured JSON logs (pino). Credentials and bodies are redacted by path as a second line of defence:
 * the first is that request logging never includes headers or bodies at all.
 * JSON lines in production (what log shippers read); human-readable lines (pino-pretty) when a person watches a
 * terminal, or when `LOG_FORMAT` says so (docs/operators/configuration.md).
 */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'secret',
  '*.secret',
  'apiKey',
  '*.apiKey',
  'body',
  '*.body',
];

/**
 * Standard output, written asynchronously: lines logged while a write is in flight go out together, so a busy API
 * pays one syscall per batch instead of one per request. Call `logger.flush()` before exiting.
 */
export function asyncStdout(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `auto` is pretty exactly when standard output is a terminal; `json` and `pretty` force one. */
export function chooseLogFormat(requested: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (requested !== 'auto') return requested;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/** Human-readable lines on standard output, written synchronously (a terminal's reader is a person, not a shipper). */
function prettyStdout(): pino.DestinationStream {
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/**
 * `format` (default `json`) is resolved against `process.stdout.isTTY`; a pretty logger writes to standard output,
 * whatever `destination` says (a destination is for JSON lines: a file, a test's capture, the async stdout).
 */
export function createLogger(options: {
  level: string;
  name: string;
  destination?: pino.DestinationStream;
  format?: LogFormat;
}): Logger {
  const base = { level: options.level, name: options.name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (chooseLogFormat(options.format ?? 'json', process.stdout.isTTY === true) === 'pretty') {
    return pino(base, prettyStdout());
  }
  return options.destination ? pino(base, options.destination) : pino(base);
}
