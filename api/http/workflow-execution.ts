/**
 * A request that drives a debt's workflow (`drivesWorkflow`) under an Idempotency-Key: no transaction is held while
 * Temporal answers (the steps are below). Without a key the executor calls the handler directly
 * (idempotent-execution.ts).
 */
import { ApiError } from '../../core/platform/errors';
import type { Db } from '../../core/platform/db';
import {
  claimIdempotencyKey,
  forgetPendingIdempotencyKey,
  recordPendingIdempotencyKey,
  saveIdempotencyRecord,
  type SavedResponse,
} from '../../core/platform/idempotency-store';
import type { SecretBox } from '../../core/platform/secret-box';
import { isSavedOutcome, problemResponse, replayed, serialize, toResult } from './idempotency-answers';
import type { ApiContext, HandlerResult, RouteDefinition, WorkflowMutationInput } from './route-definition';

export interface WorkflowExecutionDeps {
  db: Db;
  secretBox: SecretBox;
  errorBaseUrl: string;
}

/**
 * A request that drives a debt's workflow, under an Idempotency-Key, in three steps so that no transaction is held
 * while Temporal answers: (1) a short transaction claims the key and records it as pending with this request's id,
 * or finds the pending record of an earlier try with the same request and takes its id; (2) the handler asks the
 * workflow with that id as the update id, so a retry after a 5xx is the same update (Temporal answers it with the
 * first one's result, never applying it twice); (3) a short transaction saves the response. A 5xx leaves the key
 * pending for the retry; a 400 frees it, as nothing was asked.
 */
export async function runDrivingWorkflow(
  deps: WorkflowExecutionDeps,
  ctx: ApiContext,
  route: RouteDefinition,
  keyed: { organizationId: string; key: string; fingerprint: string },
  workflowInput: (updateId: string) => WorkflowMutationInput,
): Promise<HandlerResult> {
  const { organizationId, key, fingerprint } = keyed;
  const { db, secretBox } = deps;
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
  const response = await handleOutcome(ctx, deps.errorBaseUrl, () => route.handler(ctx, workflowInput(start.updateId)));
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
async function handleOutcome(
  ctx: ApiContext,
  errorBaseUrl: string,
  handle: () => Promise<HandlerResult>,
): Promise<SavedResponse> {
  try {
    return serialize(await handle(), ctx.state.requestId);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return problemResponse(ctx, err, errorBaseUrl);
  }
}
