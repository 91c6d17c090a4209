/**
 * The workflows the `webhooks` task queue serves: the bundle entry of workers/webhooks.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end; webhook delivery is the real work,
 * with the delivery reconciler and the retention purge on their Schedules.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
export { webhookDeliveryWorkflow } from '../webhook-delivery';
export { webhookReconcileWorkflow } from '../webhook-reconcile';
export { retentionPurgeWorkflow } from '../retention-purge';
