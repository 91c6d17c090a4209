/**
 * The Temporal Schedule that runs the retention purge, one per mode's namespace: created at the webhooks worker's
 * start, idempotently (a schedule that already exists is left as it is). Overlaps are skipped, so a long pass never
 * runs twice at once; the pass's own time budget is below the interval.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { SCHEDULE_IDS, TASK_QUEUES, WORKFLOW_TYPES } from '../temporal/names';

export const PURGE_EVERY = '15 minutes';

/** Creates the schedule unless it exists; resolves to whether this call created it. */
export async function ensureRetentionSchedule(client: Client, taskQueue: string = TASK_QUEUES.webhooks) {
  try {
    await client.schedule.create({
      scheduleId: SCHEDULE_IDS.retentionPurge,
      spec: { intervals: [{ every: PURGE_EVERY }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.retentionPurge, taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
