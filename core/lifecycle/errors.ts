/**
 * A lifecycle change that cannot be made because the workflow and the database disagree (not a business refusal):
 * the debt is gone, its version is not the one the workflow expects, or an input it names does not exist. The
 * activity turns it into a non-retryable ApplicationFailure of the same `type`.
 */
import type { LifecycleFailureType } from './model';

export class LifecycleIntegrityError extends Error {
  constructor(
    readonly type: LifecycleFailureType,
    message: string,
  ) {
    super(message);
    this.name = 'LifecycleIntegrityError';
  }
}
