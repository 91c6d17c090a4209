/**
 * A route is declared once, as data: method, path, scope, JSON schemas, responses and handler.
 * The Koa router and /openapi/v1.json are both built from these declarations, so a route cannot exist
 * without being documented, and the documented schemas are the ones that validate requests.
 */
import type { ParameterizedContext } from 'koa';
import type { AuthContext } from '../../core/access/auth-context';
import type { Db, Trx } from '../../core/platform/db';
import type { ErrorCode } from '../../core/platform/errors';
import type { Scope } from '../../core/access/scopes';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type MutationMethod = Exclude<HttpMethod, 'get'>;

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). Kept loose on purpose: ajv checks it at start-up. */
export type JsonSchema = Record<string, unknown>;

/** The annotation that carries a schema's handler-checked keywords (see `checkedByHandler`). */
export const HANDLER_CHECKS = 'x-handler-checks';

/**
 * Adds JSON Schema keywords that the handler enforces itself, so that the spec's own error code answers
 * (`missing_debtor`, `invalid_principal`, `invalid_color`, …) rather than ajv's `invalid_request`. The request
 * validator ignores them; the OpenAPI document merges them in, so it still says exactly what the API accepts.
 */
export function checkedByHandler(schema: JsonSchema, keywords: JsonSchema): JsonSchema {
  return { ...schema, [HANDLER_CHECKS]: keywords };
}

export interface ResponseSpec {
  description: string;
  /** Omitted for bodiless responses such as 204. */
  schema?: JsonSchema;
  contentType?: string;
  /** Several content types sharing `schema` (e.g. a document's bytes: PDF, PNG or JPEG); overrides `contentType`. */
  contentTypes?: string[];
  example?: unknown;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

export interface Deprecation {
  /** When the route was deprecated (ISO date); sent as the RFC 9745 `Deprecation` header. */
  since: string;
  /** When it will be removed (ISO date, at least six months after `since`); sent as the RFC 8594 `Sunset` header. */
  sunset: string;
  /** Migration guide, sent as `Link: <url>; rel="deprecation"`. */
  link: string;
}

/**
 * What a route needs from the caller. `none` is for unauthenticated routes (health, discovery, docs);
 * `key` needs a valid API key of this host's mode and, unless `scope` is null, that scope.
 */
export type RouteAuth = { kind: 'none' } | { kind: 'key'; scope: Scope | null };

/** What every handler gets: the validated request, the caller, and the after-commit hook. */
export interface RequestInput<TBody = unknown, TQuery = Record<string, unknown>, TParams = Record<string, string>> {
  body: TBody;
  query: TQuery;
  params: TParams;
  /** Set on every `kind: 'key'` route. */
  auth?: AuthContext;
  /**
   * Registers work to run after the transaction commits and before the response is sent (e.g. invalidating a
   * cache of what was just written); it runs only when the operation succeeds. If it fails, the client gets a 500
   * and may safely retry.
   */
  afterCommit: (task: () => Promise<void>) => void;
  /** What the route's `prepare` returned, if it has one. */
  prepared?: unknown;
}

/** A request as validation leaves it, before the executor adds the caller, the after-commit hook and `prepare`'s. */
export type ValidatedRequest = Omit<RequestInput, 'auth' | 'afterCommit' | 'prepared'>;

/** The input of a read (GET): `db` is the pool. */
export interface RouteInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> extends RequestInput<TBody, TQuery, TParams> {
  db: Db;
}

/**
 * The input of a mutation (POST, PUT, PATCH, DELETE): `trx` is the request's transaction, which also saves its
 * idempotency record. Pass it to core functions that take a `Trx`; whatever they write commits with the response.
 */
export interface MutationInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> extends RequestInput<TBody, TQuery, TParams> {
  trx: Trx;
}

/**
 * The input of a mutation that drives a debt's workflow (a route with `drivesWorkflow`): no transaction is held while
 * Temporal answers, so a slow worker cannot tie up the pool. `db` is the pool for short reads;
 * `transaction` runs a short transaction of the request's own (its events carry the request's id); `updateId` is the
 * Temporal update id to ask with: the request's id, or under an Idempotency-Key the id of the key's first request,
 * so a retry after a 5xx is the same update and gets the first one's result.
 */
export interface WorkflowMutationInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> extends RequestInput<TBody, TQuery, TParams> {
  db: Db;
  transaction: <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;
  updateId: string;
}

/** The input of an authenticated workflow mutation, where `auth` is always present. */
export type ApiWorkflowInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> = WorkflowMutationInput<TBody, TQuery, TParams> & { auth: AuthContext };

/** The input of an authenticated read, where `auth` is always present. */
export type ApiRouteInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> = RouteInput<TBody, TQuery, TParams> & { auth: AuthContext };

/** The input of an authenticated mutation, where `auth` is always present. */
export type ApiMutationInput<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> = MutationInput<TBody, TQuery, TParams> & { auth: AuthContext };

export type AnyRouteInput = RouteInput | MutationInput | WorkflowMutationInput;

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Defaults to application/json for object bodies. */
  contentType?: string;
}

export interface ApiState {
  requestId: string;
  startedAt: bigint;
  organizationId?: string;
  auth?: AuthContext;
  route?: RouteDefinition;
}

export type ApiContext = ParameterizedContext<ApiState>;

export interface RouteDefinition<TInput extends AnyRouteInput = AnyRouteInput> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/debts/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /**
   * A `multipart/form-data` body, described by this schema and encoding in the OpenAPI document. The JSON body parser
   * leaves such a route's request stream unread: the route reads it itself (in `prepare`), never buffering it whole.
   */
  multipart?: { schema: JsonSchema; encoding?: Record<string, { contentType: string }> };
  /**
   * What an Idempotency-Key fingerprints instead of the raw JSON body, computed from `prepared` (e.g. an uploaded
   * file's SHA-256 and its fields): a route whose body is streamed has no raw text to compare.
   */
  fingerprintBody?: (input: { prepared?: unknown }) => string;
  /** The body may be left out altogether (the handler then gets `{}`); by default a route with `body` needs one. */
  optionalBody?: boolean;
  /** Success responses by status code. */
  responses: Record<number, ResponseSpec>;
  /** Error codes this operation can answer besides the ones every operation of its kind shares. */
  errors?: ErrorCode[];
  /** When this operation answers a shared code for a reason of its own, e.g. a `referenceId` already in use. */
  errorCases?: Partial<Record<ErrorCode, string>>;
  deprecated?: Deprecation;
  /** Leave out of /openapi/v1.json: only for the UI and asset routes that serve the documentation itself. */
  internal?: boolean;
  /**
   * Slow work that must not hold a database connection (a DNS lookup, reading an upload): runs after validation and
   * the Idempotency-Key's form check, before the handler's transaction; its result reaches the handler as
   * `input.prepared`. Its refusals are never saved as idempotent responses. On a route with `fingerprintBody`,
   * `idempotency.replay` says the key already has a saved response: the handler will not run (the saved answer is replayed, or a
   * different request under the key refused), so `prepare` need only compute what the fingerprint needs.
   */
  prepare?: (
    ctx: ApiContext,
    input: Pick<TInput, 'body' | 'query' | 'params' | 'auth'>,
    idempotency: { replay: boolean },
  ) => Promise<unknown>;
  /**
   * The handler drives a debt's workflow (a lifecycle trigger): it gets no request transaction but the pool, a way to
   * open short ones and the update id to ask with (`WorkflowMutationInput`). Under an Idempotency-Key the key is
   * recorded as pending before the handler runs and its response saved after (api/http/idempotent-execution.ts).
   */
  drivesWorkflow?: true;
  handler: (ctx: ApiContext, input: TInput) => Promise<HandlerResult>;
  /**
   * Work outside the database that must have happened whenever this operation answers success, an idempotent replay
   * included (e.g. invalidating a cache of what it wrote): it runs after the commit, before the answer, and must be
   * idempotent. If it fails the client gets an error, and the retry (replayed or not) runs it again.
   */
  afterSuccess?: (input: Pick<TInput, 'params' | 'auth'>) => Promise<void>;
}

/**
 * Identity helper that keeps the handler's input type tied to the declaration: a read's handler gets the pool
 * (`RouteInput`), a mutation's the request's transaction (`MutationInput`).
 */
export function defineRoute<TInput extends RouteInput = RouteInput>(
  route: RouteDefinition<TInput> & { method: 'get' },
): RouteDefinition;
export function defineRoute<TInput extends MutationInput = MutationInput>(
  route: RouteDefinition<TInput> & { method: MutationMethod },
): RouteDefinition;
export function defineRoute(route: RouteDefinition): RouteDefinition {
  return route;
}

type ApiRouteDeclaration<TInput extends AnyRouteInput> = Omit<RouteDefinition<TInput>, 'auth'> & {
  scope: Scope | null;
};

/**
 * A `/v1` route: needs an API key (and `scope`, unless null); its handler always gets the caller's `auth`, and the
 * pool (`ApiRouteInput`) for a read, the request's transaction (`ApiMutationInput`) for a mutation, or the pool and
 * an update id (`ApiWorkflowInput`) for a mutation that `drivesWorkflow`.
 */
export function defineApiRoute<TInput extends ApiRouteInput = ApiRouteInput>(
  route: ApiRouteDeclaration<TInput> & { method: 'get' },
): RouteDefinition;
export function defineApiRoute<TInput extends ApiWorkflowInput = ApiWorkflowInput>(
  route: ApiRouteDeclaration<TInput> & { method: MutationMethod; drivesWorkflow: true },
): RouteDefinition;
export function defineApiRoute<TInput extends ApiMutationInput = ApiMutationInput>(
  route: ApiRouteDeclaration<TInput> & { method: MutationMethod },
): RouteDefinition;
export function defineApiRoute(
  route: ApiRouteDeclaration<ApiRouteInput | ApiMutationInput | ApiWorkflowInput>,
): RouteDefinition {
  const { scope, handler, prepare, afterSuccess, ...rest } = route;
  return {
    ...rest,
    auth: { kind: 'key', scope },
    prepare:
      prepare && (async (ctx, input, idempotency) => prepare(ctx, input as Parameters<typeof prepare>[1], idempotency)),
    afterSuccess: afterSuccess && (async (input) => afterSuccess(input as Parameters<typeof afterSuccess>[0])),
    // The input as it comes (no copy: this is on every request's path), once it is known to carry `auth`.
    handler: async (ctx, input) => {
      if (!input.auth) throw new Error(`route ${route.operationId} ran without authentication`);
      return handler(ctx, input as Parameters<typeof handler>[1]);
    },
  };
}

/** `/v1/debts/{id}` → `/v1/debts/:id` for the Koa router. */
export function toKoaPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
