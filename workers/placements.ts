/**
 * Worker process for the `placements` task queue: each placement's `placement-<id>` workflow and its chunks' imports,
 * serving production and sandbox by default. A process of its own, at a lower CPU priority than the others
 * (`WORKER_NICE`, default PLACEMENTS_NICE): a large import never shares an event loop with another tenant's lifecycles
 * and debtor mail, and takes only the CPU that everyone else's work leaves (docs/operators/scaling.md).
 */
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createPlacementActivities } from '../activities/placements';
import { createDebtRowChecker } from '../api/http/debt-row-check';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';

/**
 * Imports at once per mode: each runs one chunk (one transaction, one connection) at a time; more than a few would
 * only share the same cores and the same lifecycle worker downstream.
 */
const PLACEMENT_ACTIVITY_SLOTS = 4;

/** The nice value the process lowers itself to unless `WORKER_NICE` says otherwise. */
const PLACEMENTS_NICE = 10;

void runWorker({
  taskQueue: TASK_QUEUES.placements,
  workflowsPath: require.resolve('../workflows/bundles/placements'),
  defaultModes: 'production,sandbox',
  activitySlots: PLACEMENT_ACTIVITY_SLOTS,
  workflowTaskSlots: PLACEMENT_ACTIVITY_SLOTS,
  defaultNice: PLACEMENTS_NICE,
  createActivities: (deps) => ({
    ...createDiagnosticsActivities({ db: deps.db }),
    ...createPlacementActivities({ db: deps.db, store: deps.documents, checkRow: createDebtRowChecker() }),
  }),
});
