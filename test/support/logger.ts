/** A logger that writes nothing, for components under test whose logs the test does not read. */
import { createLogger, type Logger } from '../../core/platform/logger';

export function silentLogger(name: string): Logger {
  return createLogger({ level: 'silent', name });
}
