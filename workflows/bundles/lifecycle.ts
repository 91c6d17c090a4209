/**
 * The workflows the `lifecycle` task queue serves: the bundle entry of workers/lifecycle.ts.
 * Every queue serves the diagnostic probe, so an operator can check it end to end. The debt lifecycle is the real work,
 * with the test-mode payment processor's later failures beside it (they report to the debts' workflows), and the
 * placements (bulk imports of debts).
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
export { debtLifecycleWorkflow } from '../debt-lifecycle';
export { instalmentRemindersWorkflow } from '../instalment-reminders';
export { testPaymentFailureWorkflow } from '../test-payment-failure';
export { placementWorkflow } from '../placement';
