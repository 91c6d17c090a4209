/**
 * Where a placement's import spent its time, read from its workflow's histories (every run of it: a long import
 * continues as new): its activities running (validation, the chunks) and waiting for a worker to take them, its
 * paced pauses, and its workflow tasks waiting and running. The wait for a worker is the one to watch: the import's
 * tasks share the lifecycle task queue, under the organisation's fairness key, with the lifecycles of its own debts.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { workflowIds } from '../../core/temporal/names';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

export interface ImportTimeline {
  runs: number;
  chunks: number;
  /** First event of the first run → last event of the last. */
  spanSeconds: number;
  validationSeconds: number;
  /** The chunks' activities, started → completed (each one's last attempt). */
  chunkRunSeconds: number;
  slowestChunkSeconds: number;
  /** Every activity, scheduled → started. */
  activityWaitSeconds: number;
  slowestActivityWaitSeconds: number;
  /** Timers: the pauses that keep the organisation's pace. */
  pauseSeconds: number;
  /** Workflow tasks, scheduled → started, and started → completed. */
  workflowTaskWaitSeconds: number;
  slowestWorkflowTaskWaitSeconds: number;
  workflowTaskRunSeconds: number;
  workflowTaskTimeouts: number;
  activityRetries: number;
}

/** Every run's events, oldest run first (each run names the one it continued). */
async function historiesOf(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return runs;
  }
}

export async function importTimeline(client: Client, placementId: string): Promise<ImportTimeline> {
  const runs = await historiesOf(client, workflowIds.placement(placementId));
  const t: ImportTimeline = {
    runs: runs.length,
    chunks: 0,
    spanSeconds: 0,
    validationSeconds: 0,
    chunkRunSeconds: 0,
    slowestChunkSeconds: 0,
    activityWaitSeconds: 0,
    slowestActivityWaitSeconds: 0,
    pauseSeconds: 0,
    workflowTaskWaitSeconds: 0,
    slowestWorkflowTaskWaitSeconds: 0,
    workflowTaskRunSeconds: 0,
    workflowTaskTimeouts: 0,
    activityRetries: 0,
  };
  const at = (e: HistoryEvent | undefined) => (e ? tsToMs(e.eventTime) / 1000 : 0);
  for (const events of runs) {
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    const since = (id: unknown, e: HistoryEvent) => at(e) - at(byId.get(Number(id)));
    for (const e of events) {
      switch (e.eventType) {
        case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
          const wait = since(e.activityTaskStartedEventAttributes!.scheduledEventId, e);
          t.activityWaitSeconds += wait;
          t.slowestActivityWaitSeconds = Math.max(t.slowestActivityWaitSeconds, wait);
          if ((e.activityTaskStartedEventAttributes!.attempt ?? 1) > 1) t.activityRetries++;
          break;
        }
        case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
          const { scheduledEventId, startedEventId } = e.activityTaskCompletedEventAttributes!;
          const name = byId.get(Number(scheduledEventId))?.activityTaskScheduledEventAttributes?.activityType?.name;
          const run = since(startedEventId, e);
          if (name === 'importPlacementChunk') {
            t.chunks++;
            t.chunkRunSeconds += run;
            t.slowestChunkSeconds = Math.max(t.slowestChunkSeconds, run);
          } else if (name === 'validatePlacement') {
            t.validationSeconds += run;
          }
          break;
        }
        case EventType.EVENT_TYPE_TIMER_FIRED:
          t.pauseSeconds += since(e.timerFiredEventAttributes!.startedEventId, e);
          break;
        case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED: {
          const wait = since(e.workflowTaskStartedEventAttributes!.scheduledEventId, e);
          t.workflowTaskWaitSeconds += wait;
          t.slowestWorkflowTaskWaitSeconds = Math.max(t.slowestWorkflowTaskWaitSeconds, wait);
          break;
        }
        case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
          t.workflowTaskRunSeconds += since(e.workflowTaskCompletedEventAttributes!.startedEventId, e);
          break;
        case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
          t.workflowTaskTimeouts++;
          break;
      }
    }
  }
  t.spanSeconds = at(runs.at(-1)?.at(-1)) - at(runs[0]?.[0]);
  return t;
}
