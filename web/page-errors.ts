/**
 * What a page shows for an error thrown below it, as the API's problem middleware decides for a request: an ApiError
 * as it is, a 405/501 from the router as `method_not_allowed`, a database or Redis that is not answering as
 * `service_unavailable` (503: try again shortly — not a bug), anything else as `internal_error`.
 */
import { ApiError, ERROR_CATALOGUE } from '../core/platform/errors';
import { isDependencyUnavailable } from '../core/platform/unavailable';

export function pageError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: number }).status;
  if (status === 405 || status === 501) return new ApiError('method_not_allowed');
  if (isDependencyUnavailable(error)) return new ApiError('service_unavailable');
  return new ApiError('internal_error', ERROR_CATALOGUE.internal_error.detail);
}
