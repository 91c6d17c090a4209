/**
 * One pass of the webhook delivery reconciler, started by its Temporal Schedule every few minutes: a single activity
 * (restarting lost deliveries is I/O). The next scheduled pass is the retry, so a failed pass is not retried for long;
 * a pass stops within its time budget (RECONCILE_BUDGET_MS, under the timeout below) and the next resumes there.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { WebhookReconcileActivities } from '../activities/webhook-reconcile';

const { reconcileWebhookDeliveries } = proxyActivities<WebhookReconcileActivities>({
  startToCloseTimeout: '4 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3, initialInterval: '5 seconds' },
});

export async function webhookReconcileWorkflow(): Promise<{ checked: number; fixed: number; complete: boolean }> {
  return reconcileWebhookDeliveries();
}
