/**
 * A hot route's plain path (`withPlainPath`): its usual case written on a plain transaction beneath knex
 * (core/platform/plain-transaction.ts), which under a key opens with the claim in the same round trip and needs no
 * savepoint. Any other case (the path declines, or meets a business refusal that is saved) is rolled back, and the
 * executor runs the route's handler instead (idempotent-execution.ts), so every answer and everything saved is the
 * handler's own.
 */
import type { AuthContext } from '../../core/access/auth-context';
import { ApiError } from '../../core/platform/errors';
import type { Db } from '../../core/platform/db';
import {
  claimOf,
  claimStatement,
  saveIdempotencyRecordPlainly,
  type ClaimRow,
} from '../../core/platform/idempotency-store';
import { OpenPlainTransaction, type PlainTransaction } from '../../core/platform/plain-transaction';
import type { SecretBox } from '../../core/platform/secret-box';
import { fingerprintOf, isSavedOutcome, savedAnswerOf, serialize, toResult } from './idempotency-answers';
import type { ApiContext, HandlerResult, RequestInput, RouteDefinition, ValidatedRequest } from './route-definition';

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

/** The route's plain path, if it declared one. */
export function plainPathOf(route: RouteDefinition): PlainPath | undefined {
  return plainPaths.get(route);
}

/**
 * The route's plain path (`withPlainPath`): under a key, `begin` and the claim in one round trip, the path's
 * statements, the saved response and `commit`; without one, the same without the claim. Undefined when the case
 * needs the route's handler: the plain transaction is rolled back first.
 */
export async function runPlainly(
  deps: { db: Db; secretBox: SecretBox },
  ctx: ApiContext,
  route: RouteDefinition,
  plain: PlainPath,
  input: ValidatedRequest & { auth: AuthContext },
  key: string | undefined,
): Promise<HandlerResult | undefined> {
  const { auth } = input;
  const { db, secretBox } = deps;
  const requestId = ctx.state.requestId;
  const fingerprint = key === undefined ? '' : fingerprintOf(ctx, route, { prepared: undefined });
  const claim = key === undefined ? '' : claimStatement(auth.organizationId, key);
  // The opening statement, when there is one, is the claim: its row is a ClaimRow.
  const { tx, results } = await OpenPlainTransaction.begin<ClaimRow>(db, requestId, claim);
  try {
    if (key !== undefined) {
      const claimed = claimOf(secretBox, auth.organizationId, key, results[0]?.rows[0]);
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
