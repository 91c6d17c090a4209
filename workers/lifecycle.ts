/** Worker process for the `lifecycle` task queue (debt state machines), serving production and sandbox by default. */
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';

void runWorker({
  taskQueue: TASK_QUEUES.lifecycle,
  workflowsPath: require.resolve('../workflows/bundles/lifecycle'),
  defaultModes: 'production,sandbox',
  createActivities: ({ db }) => ({ ...createDiagnosticsActivities({ db }) }),
});
