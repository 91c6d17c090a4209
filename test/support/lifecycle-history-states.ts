/** What a recorded lifecycle history shows: the debt and plan statuses its run went through. */
import type * as proto from '@temporalio/proto';
import type { LifecycleState } from '../../core/lifecycle/model';

type History = proto.temporal.api.history.v1.IHistory;
type Payloads = proto.temporal.api.common.v1.IPayloads | null | undefined;

function firstJson(payloads: Payloads): unknown {
  const data = payloads?.payloads?.[0]?.data;
  return data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
}

/**
 * Each state the workflow held, from its input (a continued run's carried state) and every lifecycle activity's
 * result, an activity task's or a local activity's (the first load; both carry `state`): debt statuses as they are,
 * plan statuses as `plan:<status>`.
 */
export function statesReachedIn(history: History): Set<string> {
  const reached = new Set<string>();
  const note = (state: LifecycleState | undefined) => {
    if (!state) return;
    reached.add(state.status);
    if (state.plan) reached.add(`plan:${state.plan.status}`);
  };
  for (const event of history.events ?? []) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) note((firstJson(started.input) as { carried?: { state: LifecycleState } })?.carried?.state);
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) note((firstJson(completed.result) as { state?: LifecycleState })?.state);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      note((firstJson(marker.details?.['result']) as { state?: LifecycleState })?.state);
    }
  }
  return reached;
}

/** The patch ids whose markers the history records (core's `core_patch` markers carry `{ id, deprecated }`). */
export function patchMarkersIn(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = firstJson(marker.details?.['patch-data']) as { id?: string } | undefined;
    return data?.id ? [data.id] : [];
  });
}
