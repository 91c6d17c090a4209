/** Typed problems: every error answer is an RFC 9457 problem document (/docs/errors). */
import type { components } from './generated/openapi';

export type Problem = components['schemas']['Problem'];
/** The short error codes, e.g. `invalid_request`, `rate_limited`. */
export type ProblemCode = Problem['title'];

/** Thrown by the SDK's helpers for any answer that is not a success: the problem as the API sent it. */
export class ApiProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.title} (${problem.status}): ${problem.detail} [${problem.requestId}]`);
    this.name = 'ApiProblemError';
    this.status = problem.status;
    this.code = problem.title;
    this.problem = problem;
  }
}

/** Whether a value is a problem document (an error answer's body). */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const { title, status, detail } = value as Record<string, unknown>;
  return typeof title === 'string' && typeof status === 'number' && typeof detail === 'string';
}

/**
 * An openapi-fetch result's data, or the problem thrown as an ApiProblemError:
 * `const debt = unwrap(await api.GET('/v1/debts/{id}', { params: { path: { id } } }))`.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  if (isProblem(result.error)) throw new ApiProblemError(result.error);
  throw new Error(`unexpected answer ${result.response.status} from ${result.response.url}`);
}
