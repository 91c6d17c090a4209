/**
 * A task queue's backlog sampled while a scenario runs (the server's approximate count of tasks no worker has taken
 * yet, workflow and activity tasks apart): the largest of each is what a scenario reports.
 */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { sampleUntilStopped, type Sampling } from './sampler';

const { TaskQueueType } = temporal.api.enums.v1;

export interface Backlog {
  workflowTasks: number;
  activityTasks: number;
}

async function backlogOf(connection: Connection, namespace: string, taskQueue: string): Promise<Backlog> {
  const count = async (taskQueueType: temporal.api.enums.v1.TaskQueueType) => {
    const answer = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
      reportStats: true,
    });
    return Number(answer.stats?.approximateBacklogCount ?? 0);
  };
  const [workflowTasks, activityTasks] = await Promise.all([
    count(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
    count(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
  ]);
  return { workflowTasks, activityTasks };
}

/** Samples every `everyMs` until stopped; `stop` resolves with the largest backlog of each kind seen. */
export function sampleBacklog(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  everyMs = 2_000,
): Sampling<Backlog> {
  return sampleUntilStopped(
    () => backlogOf(connection, namespace, taskQueue).catch(() => undefined), // a busy server may not answer
    (largest: Backlog, now) =>
      now
        ? {
            workflowTasks: Math.max(largest.workflowTasks, now.workflowTasks),
            activityTasks: Math.max(largest.activityTasks, now.activityTasks),
          }
        : largest,
    { workflowTasks: 0, activityTasks: 0 },
    everyMs,
  );
}
