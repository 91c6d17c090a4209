/** Worker process for the `sandbox` task queue (sandbox resets): sandbox mode only, production has none. */
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createSandboxResetActivities } from '../activities/sandbox-reset';
import { TASK_QUEUES } from '../core/temporal/names';
import { runWorker } from '../core/temporal/worker-process';

void runWorker({
  taskQueue: TASK_QUEUES.sandbox,
  workflowsPath: require.resolve('../workflows/bundles/sandbox'),
  defaultModes: 'sandbox',
  createActivities: ({ db, client, logger, documents }) => ({
    ...createDiagnosticsActivities({ db }),
    ...createSandboxResetActivities({ db, client, logger, documents }),
  }),
});
