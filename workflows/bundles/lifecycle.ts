/**
 * The workflows the `lifecycle` task queue serves: the bundle entry of workers/lifecycle.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. Add the debt workflow here.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
