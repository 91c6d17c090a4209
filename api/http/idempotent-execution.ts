/**
 * Runs a validated request's handler with the right database handle:
 * - reads run on the pool (`db`);
 * - mutations run in one transaction (`trx`), so a failure leaves nothing half-done;
 * - mutations with an `Idempotency-Key` also save their response in that transaction, or replay a saved one;
 * - mutations that drive a debt's workflow (`drivesWorkflow`) hold no transaction while Temporal answers: under a key,
 *   a short transaction records the key as pending with the update id, and another saves the response.
 * It also runs the route's `prepare`, after the key's form is checked (a malformed key is refused before an upload is
 * read); on a route that fingerprints what `prepare` computes, `prepare` is told when the key's response is already
 * saved, so a replay does not redo the work (an upload's file is hashed, not stored again).
 * What is saved is decided by one rule, `isSavedOutcome` (docs/idempotency.md says the same).
 *
 * A hot route may also declare a plain path (`withPlainPath`): its usual case written on a plain transaction beneath
 * knex (core/platform/plain-transaction.ts), which under a key opens with the claim in the same round trip and needs
 * no savepoint. Any other case (the plain path declines, or meets a business refusal that is saved) is rolled back and
 * runs the route's handler as above, so every answer and everything saved is the handler's own.
 */
import { ApiError, errors } from '../../core/platform/errors';
import type { Db, Trx } from '../../core/platform/db';
import type { SecretBox } from '../../core/platform/secret-box';
import type { AuthContext } from '../../core/access/auth-context';
import { OpenPlainTransaction, type PlainTransaction } from '../../core/platform/plain-transaction';
import {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  claimIdempotencyKey,
  claimOf,
  claimStatement,
  forgetPendingIdempotencyKey,
  hasSavedIdempotencyResponse,
  recordPendingIdempotencyKey,
  requestFingerprint,
  saveIdempotencyRecord,
  saveIdempotencyRecordPlainly,
  type ClaimRow,
  type IdempotencyClaim,
  type SavedResponse,
} from '../../core/platform/idempotency-store';
import { forRequest } from '../../core/events/request-cause';
import { problemDocument, PROBLEM_CONTENT_TYPE } from './problem';
import { rawBody } from './middleware/json-body';
import type {
  ApiContext,
  HandlerResult,
  RequestInput,
  RouteDefinition,
  WorkflowMutationInput,
} from './route-definition';

export type ValidatedRequest = Omit<RequestInput, 'auth' | 'afterCommit' | 'prepared'>;
export type Executor = (ctx: ApiContext, route: RouteDefinition, input: ValidatedRequest) => Promise<HandlerResult>;

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

/** Set in the claim's round trip; a saved business error rolls the handler's writes back to it. */
const HANDLER_SAVEPOINT = 'idempotent_handler';

/**
 * The usual case of a route on a plain transaction: the success the route's handler would answer, or undefined when
 * the case needs the handler (then whatever it wrote is rolled back and the handler runs in a knex transaction).
 * Refusals of the request's own input (400) may be thrown as the handler throws them.
 */
export type PlainPath = (
  ctx: ApiContext,
  input: Pick<RequestInput, 'body' | 'query' | 'params'> & { auth: AuthContext; tx: PlainTransaction },
) => Promise<HandlerResult | undefined>;

const plainPaths = new WeakMap<RouteDefinition, PlainPath>();

/** Declares `path` as `route`'s plain path (a mutation with no `prepare` that does not drive a workflow). */
export function withPlainPath(route: RouteDefinition, path: PlainPath): RouteDefinition {
  if (route.method === 'get' || route.prepare || route.drivesWorkflow) {
    throw new Error(`route ${route.operationId} cannot have a plain path`);
  }
  plainPaths.set(route, path);
  return route;
}

/** A read commits nothing: work to run after a commit belongs to a mutation. */
function noCommitToFollow(): void {
  throw new Error('afterCommit is for mutations: a read has no transaction to follow');
}

export function createExecutor(options: { db: Db; errorBaseUrl: string; secretBox: SecretBox }): Executor {
  const { db, errorBaseUrl, secretBox } = options;

  return async (ctx, route, request) => {
    const auth = ctx.state.auth;
    // A read: the pool, nothing to claim, save or run after (a GET is measured per microsecond).
    if (route.method === 'get' && route.prepare === undefined && route.afterSuccess === undefined) {
      const { body, query, params } = request;
      return route.handler(ctx, { body, query, params, auth, afterCommit: noCommitToFollow, db });
    }
    const plain = plainPaths.get(route);
    if (plain !== undefined && auth !== undefined) {
      const key = idempotencyKeyOf(ctx, route);
      const result = await runPlainly(ctx, route, plain, { ...request, auth }, key);
      if (result !== undefined) {
        if (result.status < 400) await route.afterSuccess?.({ params: request.params, auth });
        return result;
      }
    }
    const tasks: (() => Promise<void>)[] = [];
    // A malformed key is refused before `prepare`: before an upload's file is read, let alone stored.
    const key = idempotencyKeyOf(ctx, route);
    // A replay need not redo `prepare`'s slow work (storing an upload): only what its fingerprint needs.
    const replay =
      key !== undefined && auth !== undefined && route.fingerprintBody !== undefined
        ? await hasSavedIdempotencyResponse(db, auth.organizationId, key)
        : false;
    const prepared = route.prepare ? await route.prepare(ctx, { ...request, auth }, { replay }) : undefined;
    const input = {
      ...request,
      auth,
      prepared,
      afterCommit: (task: () => Promise<void>) => void tasks.push(task),
    };
    const result = await run(ctx, route, input, key, replay);
    // A saved business error (4xx) rolled its writes back: what they registered must not run either.
    if (result.status < 400) {
      for (const task of tasks) await task();
      await route.afterSuccess?.(input); // replays too: the first answer may have failed in it
    }
    return result;
  };

  async function run(
    ctx: ApiContext,
    route: RouteDefinition,
    input: RequestInput,
    key: string | undefined,
    replay: boolean,
  ): Promise<HandlerResult> {
    const auth = input.auth;
    if (route.method === 'get') return route.handler(ctx, { ...input, db });
    const requestId = ctx.state.requestId;
    if (route.drivesWorkflow) {
      const workflowInput = (updateId: string) => ({
        ...input,
        db,
        updateId,
        transaction: <T>(work: (trx: Trx) => Promise<T>) => db.transaction((trx) => work(forRequest(trx, requestId))),
      });
      if (key === undefined || !auth) return route.handler(ctx, workflowInput(requestId));
      const keyed = { organizationId: auth.organizationId, key, fingerprint: fingerprintOf(ctx, route, input) };
      return runDrivingWorkflow(ctx, route, keyed, workflowInput);
    }
    if (key === undefined || !auth) {
      return db.transaction((trx) => route.handler(ctx, { ...input, trx: forRequest(trx, requestId) }));
    }

    const fingerprint = fingerprintOf(ctx, route, input);
    return db.transaction(async (trx) => {
      const claim = await claimIdempotencyKey(trx, secretBox, auth.organizationId, key, HANDLER_SAVEPOINT);
      const answered = savedAnswerOf(claim, fingerprint);
      if (answered) return answered;
      // The saved response seen before `prepare` expired since: what `prepare` did was for a replay, not enough to
      // run the handler on. Not saved; the same request sent again runs in full.
      if (replay) {
        throw new ApiError('idempotency_in_progress', 'The Idempotency-Key expired while this request was read.', {
          headers: { 'Retry-After': '1' },
        });
      }
      const response = await handleInSavepoint(trx, ctx, route, input);
      if (isSavedOutcome(response.status))
        await saveIdempotencyRecord(trx, secretBox, auth.organizationId, key, fingerprint, response);
      return toResult(response);
    });
  }

  /**
   * The route's plain path (`withPlainPath`): under a key, `begin` and the claim in one round trip, the path's
   * statements, the saved response and `commit`; without one, the same without the claim. Undefined when the case
   * needs the route's handler: the plain transaction is rolled back first.
   */
  async function runPlainly(
    ctx: ApiContext,
    route: RouteDefinition,
    plain: PlainPath,
    input: ValidatedRequest & { auth: AuthContext },
    key: string | undefined,
  ): Promise<HandlerResult | undefined> {
    const { auth } = input;
    const requestId = ctx.state.requestId;
    const fingerprint = key === undefined ? '' : fingerprintOf(ctx, route, { prepared: undefined });
    const claim = key === undefined ? '' : claimStatement(auth.organizationId, key);
    const { tx, results } = await OpenPlainTransaction.begin(db, requestId, claim);
    try {
      if (key !== undefined) {
        const claimed = claimOf(secretBox, auth.organizationId, key, results[0]?.rows[0] as ClaimRow | undefined);
        const answered = savedAnswerOf(claimed, fingerprint);
        if (answered) return answered;
      }
      let result: HandlerResult | undefined;
      try {
        result = await plain(ctx, { body: input.body, query: input.query, params: input.params, auth, tx });
      } catch (err) {
        // A saved refusal is the handler's to answer, from its savepoint.
        if (err instanceof ApiError && isSavedOutcome(err.status)) return undefined;
        throw err;
      }
      if (result === undefined || result.status >= 400) return undefined;
      if (key === undefined) {
        await tx.commit();
        return result;
      }
      const response = serialize(result, requestId);
      await saveIdempotencyRecordPlainly(tx, secretBox, auth.organizationId, key, fingerprint, response);
      await tx.commit();
      return toResult(response);
    } finally {
      await tx.rollback(); // unless committed: a refusal, a replay, a case for the handler, an error
    }
  }

  /**
   * A request that drives a debt's workflow, under an Idempotency-Key, in three steps so that no transaction is held
   * while Temporal answers: (1) a short transaction claims the key and records it as pending with this request's id,
   * or finds the pending record of an earlier try with the same request and takes its id; (2) the handler asks the
   * workflow with that id as the update id, so a retry after a 5xx is the same update (Temporal answers it with the
   * first one's result, never applying it twice); (3) a short transaction saves the response. A 5xx leaves the key
   * pending for the retry; a 400 frees it, as nothing was asked.
   */
  async function runDrivingWorkflow(
    ctx: ApiContext,
    route: RouteDefinition,
    keyed: { organizationId: string; key: string; fingerprint: string },
    workflowInput: (updateId: string) => WorkflowMutationInput,
  ): Promise<HandlerResult> {
    const { organizationId, key, fingerprint } = keyed;
    const requestId = ctx.state.requestId;
    const start = await db.transaction(async (trx) => {
      const claim = await claimIdempotencyKey(trx, secretBox, organizationId, key);
      if (!claim.locked) throw new ApiError('idempotency_in_progress');
      const taken = claim.saved ?? claim.pending;
      if (taken && taken.fingerprint !== fingerprint) throw new ApiError('idempotency_conflict');
      if (claim.saved) return { saved: claim.saved, updateId: '' };
      if (claim.pending) return { updateId: claim.pending.requestId };
      await recordPendingIdempotencyKey(trx, organizationId, key, fingerprint, requestId);
      return { updateId: requestId };
    });
    if (start.saved) return replayed(start.saved);
    const response = await handleOutcome(ctx, () => route.handler(ctx, workflowInput(start.updateId)));
    return db.transaction(async (trx) => {
      const claim = await claimIdempotencyKey(trx, secretBox, organizationId, key);
      // Another try of the same request holds the key: it asked the same update and saves the same answer.
      if (!claim.locked) return toResult(response);
      if (claim.saved?.fingerprint === fingerprint) return replayed(claim.saved);
      if (isSavedOutcome(response.status)) {
        await saveIdempotencyRecord(trx, secretBox, organizationId, key, fingerprint, response);
      } else if (response.status < 500) {
        await forgetPendingIdempotencyKey(trx, organizationId, key);
      }
      return toResult(response);
    });
  }

  /** The handler's result, or its refusal (any ApiError) as the response it would be; other errors are thrown. */
  async function handleOutcome(ctx: ApiContext, handle: () => Promise<HandlerResult>): Promise<SavedResponse> {
    try {
      return serialize(await handle(), ctx.state.requestId);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return problemResponse(ctx, err);
    }
  }

  function problemResponse(ctx: ApiContext, err: ApiError): SavedResponse {
    return {
      status: err.status,
      headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...(err.extra.headers ?? {}) },
      body: JSON.stringify(problemDocument(err, ctx.state.requestId, errorBaseUrl)),
      requestId: ctx.state.requestId,
    };
  }

  /**
   * A saved error (see isSavedOutcome) rolls back the handler's writes to the savepoint the claim set, keeping the
   * transaction to save it in. On success the savepoint is simply left: it ends with the transaction, so releasing it
   * would only cost a round trip.
   */
  async function handleInSavepoint(
    trx: Trx,
    ctx: ApiContext,
    route: RouteDefinition,
    input: RequestInput,
  ): Promise<SavedResponse> {
    try {
      const result = await route.handler(ctx, { ...input, trx: forRequest(trx, ctx.state.requestId) });
      return serialize(result, ctx.state.requestId);
    } catch (err) {
      if (!(err instanceof ApiError) || !isSavedOutcome(err.status)) throw err;
      await trx.raw(`rollback to savepoint ${HANDLER_SAVEPOINT}`);
      return problemResponse(ctx, err);
    }
  }
}

/**
 * The request's Idempotency-Key, checked, when it applies: a mutation by an authenticated caller. An empty header is
 * a malformed key, not an absent one.
 */
function idempotencyKeyOf(ctx: ApiContext, route: RouteDefinition): string | undefined {
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

function fingerprintOf(ctx: ApiContext, route: RouteDefinition, input: { prepared?: unknown }): string {
  const body = route.fingerprintBody ? route.fingerprintBody(input) : rawBody(ctx.request);
  return requestFingerprint(ctx.method, ctx.originalUrl, body);
}

function serialize(result: HandlerResult, requestId: string): SavedResponse {
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

function toResult(response: SavedResponse): HandlerResult {
  const { 'Content-Type': contentType, ...headers } = response.headers;
  return { status: response.status, headers, body: response.body === '' ? undefined : response.body, contentType };
}

/**
 * What a claimed key says about this request before it runs: another request holds the key (409 in progress), the
 * key was used for a different request (409 conflict), or the saved answer to replay; undefined when it is to run.
 */
function savedAnswerOf(claim: IdempotencyClaim, fingerprint: string): HandlerResult | undefined {
  if (!claim.locked) throw new ApiError('idempotency_in_progress');
  const { saved, pending } = claim;
  if (saved) {
    if (saved.fingerprint !== fingerprint) throw new ApiError('idempotency_conflict');
    return replayed(saved);
  }
  if (pending && pending.fingerprint !== fingerprint) throw new ApiError('idempotency_conflict');
  return undefined;
}

function replayed(saved: SavedResponse): HandlerResult {
  const result = toResult(saved);
  return {
    ...result,
    headers: { ...result.headers, 'Idempotent-Replayed': 'true', 'Original-Request-Id': saved.requestId },
  };
}
