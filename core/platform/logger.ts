/**
 * Structured JSON logs (pino). Credentials and bodies are redacted by path as a second line of defence:
 * the first is that request logging never includes headers or bodies at all.
 */
import pino, { type Logger } from 'pino';

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

export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  const base = { level: options.level, name: options.name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return options.destination ? pino(base, options.destination) : pino(base);
}
