/**
 * JSON body parsing with the service's rules: bodies only as application/json (else 415), at most 1 MiB (else 413),
 * malformed JSON is 400. The raw text is kept for idempotency fingerprints.
 *
 * `application/*+json` types are refused too, naming the one accepted type: they carry their own semantics (a JSON
 * Patch is a list of operations, a merge patch treats null as removal) that the API does not implement, so reading
 * them as plain JSON would answer a misleading validation error, or worse, act on a misread request.
 */
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { ApiError } from '../../../core/platform/errors';
import type { ApiContext, ApiState } from '../route-definition';
import type { RouteGuard } from '../route-pipeline';

export const MAX_BODY_BYTES = 1024 * 1024;
const ACCEPTED_TYPE = 'application/json';
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Parses a JSON body of a POST, PUT, PATCH or DELETE (at most 1 MiB, `application/json` only). Run per route, after
 * the key checks (`jsonBodyGuard`); a multipart route reads its own body and never meets it.
 */
export function jsonBody(): Middleware<ApiState> {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonStrict: true,
    jsonLimit: MAX_BODY_BYTES,
    includeUnparsed: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (err) => {
      throw err;
    },
  }) as unknown as Middleware<ApiState>;
  return async (ctx, next) => {
    if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx.headers)) {
      await next();
      return;
    }
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > MAX_BODY_BYTES) throw new ApiError('payload_too_large');
    if (ctx.is(ACCEPTED_TYPE) !== ACCEPTED_TYPE) {
      throw new ApiError(
        'unsupported_media_type',
        `Request bodies must be ${ACCEPTED_TYPE}; this one was sent as ${ctx.get('content-type').slice(0, 100) || 'no content type'}.`,
      );
    }
    await parse(ctx, next);
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
}

/** The body exactly as received (koa-body keeps it as `request.rawBody`), for fingerprinting. */
export function rawBody(request: unknown): string {
  const raw = (request as { rawBody?: unknown }).rawBody;
  return typeof raw === 'string' ? raw : '';
}

/**
 * Whether a request is for a path whose route reads its own (multipart) body. Any method on that path passes: the
 * router answers another method 405, as for any path, rather than this parser answering 415 first.
 */
/**
 * The parser as a route guard (api/http/router.ts), so it runs after the key checks: every route's JSON body but a
 * multipart route's, whose handler streams its own body.
 */
export function jsonBodyGuard(): RouteGuard {
  const parser = jsonBody();
  const parsed = () => Promise.resolve();
  const parse = (ctx: ApiContext) => parser(ctx, parsed) as Promise<void>;
  // A GET's body is never parsed (the parser reads only POST, PUT, PATCH and DELETE): its route needs no guard.
  return (route) => (route.multipart || route.method === 'get' ? undefined : parse);
}
