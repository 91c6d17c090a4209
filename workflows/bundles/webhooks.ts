/**
 * The workflows the `webhooks` task queue serves: the bundle entry of workers/webhooks.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. Add webhook delivery here.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
