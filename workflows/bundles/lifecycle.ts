/**
 * The workflows the `lifecycle` task queue serves: the bundle entry of workers/lifecycle.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. The debt lifecycle is the real work.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
export { debtLifecycleWorkflow } from '../debt-lifecycle';
export { instalmentRemindersWorkflow } from '../instalment-reminders';
