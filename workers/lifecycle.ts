/**
 * Worker process for the `lifecycle` task queue (one `debt-<id>` workflow per debt, and the test-mode payment
 * processor's `test-payment-<attemptId>` timers), serving production and sandbox by default. Each mode also runs an outbox relay here with the debt lifecycle consumer, which starts a debt's
 * workflow when its `debt.created` event commits.
 */
import { createDebtLifecycleActivities } from '../activities/debt-lifecycle';
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createTestPaymentActivities } from '../activities/test-payment';
import { reportOutboxLag } from '../core/events/outbox-lag';
import { startOutboxRelay } from '../core/events/relay';
import { createDebtLifecycleConsumer } from '../core/lifecycle/lifecycle-consumer';
import { TASK_QUEUES } from '../core/temporal/names';
import { LIFECYCLE_CACHED_WORKFLOWS, runWorker } from '../core/temporal/worker-process';

void runWorker({
  taskQueue: TASK_QUEUES.lifecycle,
  workflowsPath: require.resolve('../workflows/bundles/lifecycle'),
  defaultModes: 'production,sandbox',
  cachedWorkflows: LIFECYCLE_CACHED_WORKFLOWS,
  createActivities: ({ db, mode, logger, client }) => ({
    ...createDiagnosticsActivities({ db }),
    ...createDebtLifecycleActivities({ db, mode, logger: logger.child({ mode }) }),
    ...createTestPaymentActivities({ db, client, mode, logger: logger.child({ mode }) }),
  }),
  startSidecar: async ({ mode, db, databaseUrl, client, logger }) => {
    const consumers = [createDebtLifecycleConsumer({ mode, db, client })];
    const relay = startOutboxRelay({ mode, db, databaseUrl, logger, consumers });
    const stopLag = reportOutboxLag({ db, mode, consumers: consumers.map((c) => c.name) });
    return () => {
      stopLag();
      return relay.stop();
    };
  },
});
