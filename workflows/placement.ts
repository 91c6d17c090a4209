/**
 * One placement's import (docs/placements.md): `placement-<id>` on the lifecycle task queue. It waits for the
 * placement's row (the API starts it just before the row commits; a row that never comes, a request that failed, ends
 * the run as `Abandoned`), validates every row, then imports a chunk at a time, each chunk an activity of its own so
 * that other tenants' tasks interleave with it (the fairness key is the organisation), pausing between chunks to keep
 * the organisation's pace. A chunk commits whole or not at all, so a worker killed mid-chunk loses nothing: the retried
 * activity resumes at the last committed chunk. The `PlacementStatus` search attribute follows the status. Long
 * imports continue as new when Temporal suggests it; the new run picks up from the row's status.
 * A placement deleted while its run goes on (a sandbox reset wipes the tenant's placements) makes its next step fail
 * `PlacementGone`, not retried: the run ends `Gone`, its `PlacementStatus` shown as `Cancelled`.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  patched,
  proxyActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PlacementActivities, PlacementRef, PlacementStatus } from '../activities/placements';
import { PATCH_IDS, PLACEMENT_GONE_FAILURE, SEARCH_ATTRIBUTE_KEYS } from '../core/temporal/names';

export type PlacementWorkflowInput = PlacementRef;

/** What a run ends with: the placement's last status; `Abandoned` (its row never came); `Gone` (deleted meanwhile). */
export type PlacementRunEnd = PlacementStatus | 'Abandoned' | 'Gone';

const { placementStatus } = proxyActivities<PlacementActivities>({
  startToCloseTimeout: '30 seconds',
  // About four minutes of tries for the row to commit: far longer than any request takes to answer.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

const { validatePlacement } = proxyActivities<PlacementActivities>({
  // A 50 MiB file is read in well under this; a killed worker is noticed by the missing heartbeat instead.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { importPlacementChunk, finishPlacement } = proxyActivities<PlacementActivities>({
  startToCloseTimeout: '5 minutes',
  // A chunk heartbeats as it goes: a worker killed mid-chunk is noticed in seconds, and the retry resumes.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

function showStatus(status: PlacementStatus): void {
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.placementStatus, value: status }]);
}

function isPlacementGone(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === PLACEMENT_GONE_FAILURE
  );
}

export async function placementWorkflow(input: PlacementWorkflowInput): Promise<PlacementRunEnd> {
  try {
    return await runPlacement(input);
  } catch (err) {
    if (isPlacementGone(err) && patched(PATCH_IDS.placementGoneEndsRun)) {
      showStatus('Cancelled');
      return 'Gone';
    }
    throw err;
  }
}

async function runPlacement(input: PlacementWorkflowInput): Promise<PlacementStatus | 'Abandoned'> {
  let status: PlacementStatus;
  try {
    status = await placementStatus(input);
  } catch (err) {
    if (err instanceof ActivityFailure) return 'Abandoned';
    throw err;
  }
  showStatus(status);
  if (status === 'Validating') {
    status = (await validatePlacement(input)).status;
    showStatus(status);
  }
  if (status !== 'Importing') return status;
  for (;;) {
    const chunk = await importPlacementChunk(input);
    if (chunk.done) break;
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof placementWorkflow>(input);
    if (chunk.pauseMs > 0) await sleep(chunk.pauseMs);
  }
  status = (await finishPlacement(input)).status;
  showStatus(status);
  return status;
}
