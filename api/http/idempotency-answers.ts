/**
 * What an Idempotency-Key decides about a request and how a response is kept for it, shared by the executor's paths
 * (idempotent-execution.ts, plain-execution.ts, workflow-execution.ts): the key's form, the request's fingerprint,
 * the rule of what is saved, a response as saved and as replayed, and a refusal as the response it would be.
 */
import { ApiError, errors } from '../../core/platform/errors';
import {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  requestFingerprint,
  type IdempotencyClaim,
  type SavedResponse,
} from '../../core/platform/idempotency-store';
import { problemDocument, PROBLEM_CONTENT_TYPE } from './problem';
import { rawBody } from './middleware/json-body';
import type { ApiContext, HandlerResult, RouteDefinition } from './route-definition';

/**
 * The one rule of what an Idempotency-Key keeps: successes and business outcomes (404, 409, …) are saved and
 * replayed; a 400 refuses the request for its own input (the schema's or the handler's finding, e.g.
 * `invalid_principal`, `debtor_not_found`), so it is not saved and a corrected retry may reuse the key; a 5xx rolled
 * everything back and is not saved either.
 */
export function isSavedOutcome(status: number): boolean {
  return status < 400 || (status > 400 && status < 500);
}

/** Printable ASCII without spaces at the ends (1–200 characters); the OpenAPI document publishes this pattern. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$';
const IDEMPOTENCY_KEY_FORM = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The request's Idempotency-Key, checked, when it applies: a mutation by an authenticated caller. An empty header is
 * a malformed key, not an absent one.
 */
export function idempotencyKeyOf(ctx: ApiContext, route: RouteDefinition): string | undefined {
  if (route.method === 'get' || !ctx.state.auth || ctx.headers['idempotency-key'] === undefined) return undefined;
  return checkedKey(ctx.get('Idempotency-Key'));
}

function checkedKey(key: string): string {
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_FORM.test(key)) {
    throw errors.invalidRequest(
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`,
      [{ path: 'header.Idempotency-Key', message: `must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable characters` }],
    );
  }
  return key;
}

export function fingerprintOf(ctx: ApiContext, route: RouteDefinition, input: { prepared?: unknown }): string {
  const body = route.fingerprintBody ? route.fingerprintBody(input) : rawBody(ctx.request);
  return requestFingerprint(ctx.method, ctx.originalUrl, body);
}

export function serialize(result: HandlerResult, requestId: string): SavedResponse {
  const body =
    result.body === undefined ? '' : typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  const contentType =
    result.contentType ??
    (typeof result.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8');
  return {
    status: result.status,
    headers: { ...(result.headers ?? {}), 'Content-Type': contentType },
    body,
    requestId,
  };
}

export function toResult(response: SavedResponse): HandlerResult {
  const { 'Content-Type': contentType, ...headers } = response.headers;
  return { status: response.status, headers, body: response.body === '' ? undefined : response.body, contentType };
}

/**
 * What a claimed key says about this request before it runs: another request holds the key (409 in progress), the
 * key was used for a different request (409 conflict), or the saved answer to replay; undefined when it is to run.
 */
export function savedAnswerOf(claim: IdempotencyClaim, fingerprint: string): HandlerResult | undefined {
  if (!claim.locked) throw new ApiError('idempotency_in_progress');
  const { saved, pending } = claim;
  if (saved) {
    if (saved.fingerprint !== fingerprint) throw new ApiError('idempotency_conflict');
    return replayed(saved);
  }
  if (pending && pending.fingerprint !== fingerprint) throw new ApiError('idempotency_conflict');
  return undefined;
}

export function replayed(saved: SavedResponse): HandlerResult {
  const result = toResult(saved);
  return {
    ...result,
    headers: { ...result.headers, 'Idempotent-Replayed': 'true', 'Original-Request-Id': saved.requestId },
  };
}

/** A refusal as the response it would be: the problem document, with the error's headers. */
export function problemResponse(ctx: ApiContext, err: ApiError, errorBaseUrl: string): SavedResponse {
  return {
    status: err.status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...(err.extra.headers ?? {}) },
    body: JSON.stringify(problemDocument(err, ctx.state.requestId, errorBaseUrl)),
    requestId: ctx.state.requestId,
  };
}
