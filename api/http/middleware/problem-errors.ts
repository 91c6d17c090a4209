/**
 * Turns every error thrown below it into a problem document: ApiErrors as they are, Koa/http-errors by status,
 * a dependency that is not answering as a 503 `service_unavailable`, anything else as a 500 `internal_error` whose
 * details go only to the log, with the request id.
 */
import type { Middleware } from 'koa';
import { ApiError, type ErrorCode } from '../../../core/platform/errors';
import type { Logger } from '../../../core/platform/logger';
import { isDependencyUnavailable } from '../../../core/platform/unavailable';
import { writeProblem } from '../problem';
import type { ApiState } from '../route-definition';
import type { ApiRouter } from '../router';
import { refuseIfUnanswered } from './not-matched';

const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/**
 * With `router`, a request nothing below answered is refused as not found (404) or with the wrong method (405) here,
 * once everything below (the key checks included: a `/v1` 404 needs a valid key and carries the rate-limit headers)
 * has run: one layer for both, as each layer is paid on every request.
 */
export function problemErrors(options: {
  logger: Logger;
  errorBaseUrl: string;
  router?: ApiRouter;
}): Middleware<ApiState> {
  const { router } = options;
  return async (ctx, next) => {
    try {
      await next();
      if (router) refuseIfUnanswered(ctx, router);
    } catch (err) {
      writeProblem(ctx, toApiError(err, ctx.state.requestId, options.logger), options.errorBaseUrl);
    }
  };
}

function toApiError(err: unknown, requestId: string, logger: Logger): ApiError {
  if (err instanceof ApiError) return err;
  const status = typeof err === 'object' && err !== null ? (err as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status < 500 && HTTP_STATUS_CODES[status]) {
    const code = HTTP_STATUS_CODES[status];
    // Client errors raised by body parsing (http-errors, or co-body's SyntaxError for bad JSON): their message
    // describes the client's input, e.g. "Unexpected end of JSON input".
    return new ApiError(code, code === 'invalid_request' ? `Malformed request: ${(err as Error).message}` : undefined);
  }
  if (isDependencyUnavailable(err)) {
    // Not a bug: the database or Redis is not answering. The client may retry; the log says which.
    logger.warn({ err: (err as Error).message, requestId }, 'dependency unavailable');
    return new ApiError('service_unavailable');
  }
  logger.error({ err, requestId }, 'unhandled error');
  return new ApiError('internal_error');
}
