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
 * A hot route may also declare a plain path (plain-execution.ts), tried first; a case it declines runs as above.
 * The workflow-driving path under a key is workflow-execution.ts; what a key decides and how a response is saved and
 * replayed is idempotency-answers.ts.
 */
import { ApiError } from '../../core/platform/errors';
import type { Db, Trx } from '../../core/platform/db';
import type { SecretBox } from '../../core/platform/secret-box';
import {
  claimIdempotencyKey,
  hasSavedIdempotencyResponse,
  saveIdempotencyRecord,
  type SavedResponse,
} from '../../core/platform/idempotency-store';
import { forRequest } from '../../core/events/request-cause';
import {
  fingerprintOf,
  idempotencyKeyOf,
  isSavedOutcome,
  problemResponse,
  savedAnswerOf,
  serialize,
  toResult,
} from './idempotency-answers';
import { plainPathOf, runPlainly } from './plain-execution';
import type { ApiContext, HandlerResult, RequestInput, RouteDefinition } from './route-definition';
import type { Executor } from './route-pipeline';
import { runDrivingWorkflow } from './workflow-execution';

/** Set in the claim's round trip; a saved business error rolls the handler's writes back to it. */
const HANDLER_SAVEPOINT = 'idempotent_handler';

/** A read commits nothing: work to run after a commit belongs to a mutation. */
function noCommitToFollow(): void {
  throw new Error('afterCommit is for mutations: a read has no transaction to follow');
}

export function createExecutor(options: { db: Db; errorBaseUrl: string; secretBox: SecretBox }): Executor {
  const { db, errorBaseUrl, secretBox } = options;
  const deps = { db, secretBox, errorBaseUrl };

  return async (ctx, route, request) => {
    const auth = ctx.state.auth;
    // A read: the pool, nothing to claim, save or run after (a GET is measured per microsecond).
    if (route.method === 'get' && route.prepare === undefined && route.afterSuccess === undefined) {
      const { body, query, params } = request;
      return route.handler(ctx, { body, query, params, auth, afterCommit: noCommitToFollow, db });
    }
    const plain = plainPathOf(route);
    if (plain !== undefined && auth !== undefined) {
      const key = idempotencyKeyOf(ctx, route);
      const result = await runPlainly(deps, ctx, route, plain, { ...request, auth }, key);
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
      return runDrivingWorkflow(deps, ctx, route, keyed, workflowInput);
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
      return problemResponse(ctx, err, errorBaseUrl);
    }
  }
}
