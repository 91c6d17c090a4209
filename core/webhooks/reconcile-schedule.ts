/**
 * The Temporal Schedule that runs the delivery reconciler: created at worker start, idempotently (a schedule that
 * already exists is left as it is). Overlaps are skipped, so a slow pass never runs twice at once.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { SCHEDULE_IDS, TASK_QUEUES, WORKFLOW_TYPES } from '../temporal/names';

export const RECONCILE_EVERY = '5 minutes';

/** Creates the schedule unless it exists; resolves to whether this call created it. */
export async function ensureReconcileSchedule(client: Client, taskQueue: string = TASK_QUEUES.webhooks) {
  try {
    await client.schedule.create({
      scheduleId: SCHEDULE_IDS.webhookReconcile,
      spec: { intervals: [{ every: RECONCILE_EVERY }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.webhookReconcile, taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
