/**
 * The Temporal Schedule that runs the retention purge, one per mode's namespace, created at the webhooks worker's
 * start (core/temporal/schedules.ts); the pass's own time budget is below the interval.
 */
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { ensureSchedule } from '../temporal/schedules';
import { SCHEDULE_IDS, TASK_QUEUES, WORKFLOW_TYPES } from '../temporal/names';

export const PURGE_EVERY: Duration = '15 minutes';

/** Creates the schedule unless it exists; resolves to whether this call created it. */
export function ensureRetentionSchedule(client: Client, taskQueue: string = TASK_QUEUES.webhooks): Promise<boolean> {
  return ensureSchedule(client, {
    scheduleId: SCHEDULE_IDS.retentionPurge,
    workflowType: WORKFLOW_TYPES.retentionPurge,
    taskQueue,
    every: PURGE_EVERY,
  });
}
