/**
 * Log lines and metrics context of an activity: a child logger carrying the ids an operator searches by (the
 * request id, the delivery or debt id, the workflow id), so every line of one delivery or one debt's change is found
 * from the client's `X-Request-Id` (docs/operators/operations.md).
 */
import { Context } from '@temporalio/activity';
import pino from 'pino';
import type { Logger } from '../core/platform/logger';

/** For activities built without a logger (unit and workflow tests): nothing is written. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** The running activity's workflow id, or null outside a worker (an activity called directly by a test). */
export function currentWorkflowId(): string | null {
  try {
    return Context.current().info.workflowExecution?.workflowId ?? null;
  } catch {
    return null;
  }
}

/** A child of `logger` with these ids and the running activity's workflow id. */
export function activityLogger(logger: Logger, ids: Record<string, string | number | null>): Logger {
  return logger.child({ ...ids, workflowId: currentWorkflowId() });
}
