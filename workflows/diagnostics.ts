/**
 * Operator tool: every worker serves this workflow, so running it on a task queue and namespace proves the queue is
 * polled and the worker reaches its database, end to end.
 */
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DiagnosticsActivities, ProbeResult } from '../activities/diagnostics';

export interface DiagnosticProbeStatus {
  phase: 'RecordingProbe' | 'Completed';
  databaseTime: string | null;
}

export const diagnosticProbeStatusQuery = defineQuery<DiagnosticProbeStatus>('status');

// A probe should report a broken database quickly rather than retry for ever.
const { recordProbe } = proxyActivities<DiagnosticsActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** `probeId` is an opaque id chosen by the operator; it carries no data. */
export async function diagnosticProbeWorkflow(probeId: string): Promise<ProbeResult> {
  const status: DiagnosticProbeStatus = { phase: 'RecordingProbe', databaseTime: null };
  setHandler(diagnosticProbeStatusQuery, () => status);
  const result = await recordProbe(probeId);
  status.phase = 'Completed';
  status.databaseTime = result.databaseTime;
  return result;
}
