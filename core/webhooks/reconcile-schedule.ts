/** The Temporal Schedule that runs the delivery reconciler, created at worker start (core/temporal/schedules.ts). */
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { ensureSchedule } from '../temporal/schedules';
import { SCHEDULE_IDS, TASK_QUEUES, WORKFLOW_TYPES } from '../temporal/names';

export const RECONCILE_EVERY: Duration = '5 minutes';

/** Creates the schedule unless it exists; resolves to whether this call created it. */
export function ensureReconcileSchedule(client: Client, taskQueue: string = TASK_QUEUES.webhooks): Promise<boolean> {
  return ensureSchedule(client, {
    scheduleId: SCHEDULE_IDS.webhookReconcile,
    workflowType: WORKFLOW_TYPES.webhookReconcile,
    taskQueue,
    every: RECONCILE_EVERY,
  });
}
