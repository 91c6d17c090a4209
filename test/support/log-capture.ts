/** A JSON logger made as the service makes its own (core/platform/logger.ts), whose lines a test reads back parsed. */
import { createLogger, type Logger } from '../../core/platform/logger';

export function captureLog(name = 'test'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    name,
    format: 'json',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}
