/**
 * The workflows the `sandbox` task queue serves: the bundle entry of workers/sandbox.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. The sandbox reset is the real work.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
export { sandboxResetWorkflow } from '../sandbox-reset';
