/**
 * Turns every error thrown below it into a problem document: ApiErrors as they are, Koa/http-errors by status,
 * a database that cannot be reached as a 503, anything else as a 500 `internal_error` whose details go only to
 * the log, with the request id.
 */
import type { Middleware } from 'koa';
import { isDatabaseUnavailable } from '../../../core/platform/db-unavailable';
import { ApiError, type ErrorCode } from '../../../core/platform/errors';
import type { Logger } from '../../../core/platform/logger';
import { writeProblem } from '../problem';
import type { ApiState } from '../route-definition';

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

export function problemErrors(options: { logger: Logger; errorBaseUrl: string }): Middleware<ApiState> {
  return async (ctx, next) => {
    try {
      await next();
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
  if (isDatabaseUnavailable(err)) {
    logger.warn({ err, requestId }, 'database unavailable');
    return new ApiError('service_unavailable', 'The database is not answering; retry with backoff.');
  }
  logger.error({ err, requestId }, 'unhandled error');
  return new ApiError('internal_error');
}
