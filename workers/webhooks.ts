/** Worker process for the `webhooks` task queue (webhook delivery), serving production and sandbox by default. */
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from './run-worker';

void runWorker({
  taskQueue: TASK_QUEUES.webhooks,
  workflowsPath: require.resolve('../workflows/bundles/webhooks'),
  defaultModes: 'production,sandbox',
  createActivities: ({ db }) => ({ ...createDiagnosticsActivities({ db }) }),
});
