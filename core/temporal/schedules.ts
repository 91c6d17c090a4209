/**
 * Periodic work as Temporal Schedules, created at a worker's start, idempotently: a schedule that already exists is
 * left as it is. Overlaps are skipped, so a slow pass never runs twice at once.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

export interface PeriodicWorkflow {
  scheduleId: string;
  workflowType: string;
  taskQueue: string;
  /** A Temporal interval, e.g. `5 minutes`. */
  every: Duration;
}

/** Creates the schedule unless it exists; resolves to whether this call created it. */
export async function ensureSchedule(client: Client, work: PeriodicWorkflow): Promise<boolean> {
  try {
    await client.schedule.create({
      scheduleId: work.scheduleId,
      spec: { intervals: [{ every: work.every }] },
      action: { type: 'startWorkflow', workflowType: work.workflowType, taskQueue: work.taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
