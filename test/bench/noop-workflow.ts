/** The engine's floor for the webhooks benchmark: a workflow that runs one no-op activity. */
import { proxyActivities } from '@temporalio/workflow';

export interface NoopActivities {
  noop(): Promise<void>;
}

const { noop } = proxyActivities<NoopActivities>({ startToCloseTimeout: '10 seconds' });

export async function noopWorkflow(): Promise<void> {
  await noop();
}
