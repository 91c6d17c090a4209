/** Rendering of RFC 7807 problem documents: the only place that writes an error response body. */
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../../core/platform/errors';
import type { ApiContext } from './route-definition';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemDocument {
  type: string;
  title: ErrorCode;
  status: number;
  detail: string;
  requestId: string;
  [extension: string]: unknown;
}

export function problemDocument(error: ApiError, requestId: string, errorBaseUrl: string): ProblemDocument {
  const { headers: _headers, ...extensions } = error.extra;
  return {
    type: `${errorBaseUrl}/${error.code}`,
    title: error.code,
    status: ERROR_CATALOGUE[error.code].status,
    detail: error.message,
    requestId,
    ...extensions,
  };
}

export function writeProblem(ctx: ApiContext, error: ApiError, errorBaseUrl: string): void {
  const problem = problemDocument(error, ctx.state.requestId, errorBaseUrl);
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) ctx.set(name, value);
  ctx.status = problem.status;
  ctx.type = PROBLEM_CONTENT_TYPE;
  ctx.body = JSON.stringify(problem);
}
