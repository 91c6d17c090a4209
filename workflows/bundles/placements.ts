/**
 * The workflows the `placements` task queue serves: the bundle entry of workers/placements.ts. Every queue serves the
 * diagnostic probe, so an operator can check it end to end; the real work is each placement's import.
 */
export { diagnosticProbeWorkflow } from '../diagnostics';
export { placementWorkflow } from '../placement';
