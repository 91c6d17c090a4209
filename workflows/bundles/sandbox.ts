/**
 * The workflows the `sandbox` task queue serves: the bundle entry of workers/sandbox.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. Add the sandbox reset here.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
