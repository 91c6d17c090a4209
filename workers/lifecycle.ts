/**
 * Worker process for the `lifecycle` task queue (one `debt-<id>` workflow per debt, each plan's instalment
 * reminders, and the test-mode payment processor's `test-payment-<attemptId>` timers), serving production and
 * sandbox by default; placements' imports run in a process of their own (workers/placements.ts). Each mode also
 * runs an outbox relay here with the debt lifecycle consumer, which starts a debt's workflow when its `debt.created`
 * event commits (a placement's rows too), and the debtor notifications consumer, which mails (production) or records
 * (sandbox) what debtors are told.
 */
import { createDebtLifecycleActivities } from '../activities/debt-lifecycle';
import { createDebtorNotificationActivities } from '../activities/debtor-notifications';
import { createDiagnosticsActivities } from '../activities/diagnostics';
import { createPlacementActivities } from '../activities/placements';
import { createDebtRowChecker } from '../api/http/debt-row-check';
import { createTestPaymentActivities } from '../activities/test-payment';
import { reportOutboxLag } from '../core/events/outbox-lag';
import { startOutboxRelay } from '../core/events/relay';
import { createDebtLifecycleConsumer } from '../core/lifecycle/lifecycle-consumer';
import { createMailer } from '../core/notifications/mail';
import { mailSendsInFlight } from '../core/notifications/mail-dispatcher';
import { createNotificationsConsumer } from '../core/notifications/notifications-consumer';
import type { WorkerDeps } from '../core/temporal/worker-process';
import { TASK_QUEUES } from '../core/temporal/names';
import { LIFECYCLE_CACHED_WORKFLOWS, LIFECYCLE_LOCAL_ACTIVITY_SLOTS, runWorker } from '../core/temporal/worker-process';

/**
 * What debtor notifications need in a mode: its public URL, the collector's Reply-To, and a mailer with the
 * notifications' `From`. The consumer's dispatcher sends through a pooled transport (SMTP_MAX_CONNECTIONS kept open,
 * at most SMTP_MAX_MESSAGES_PER_SECOND); the reminder activities, one message at a time, through their own.
 */
function notificationDeps({ db, mode, logger, notifications, secretBox }: WorkerDeps, pooled = false) {
  const { smtpUrl, from, replyTo, pool } = notifications;
  return {
    db,
    mode,
    secretBox,
    replyTo,
    logger: logger.child({ mode }),
    publicBaseUrl: notifications.publicBaseUrls[mode],
    mailer: createMailer({ smtpUrl, from, ...(pooled ? { pool } : {}) }),
  };
}

void runWorker({
  taskQueue: TASK_QUEUES.lifecycle,
  workflowsPath: require.resolve('../workflows/bundles/lifecycle'),
  defaultModes: 'production,sandbox',
  cachedWorkflows: LIFECYCLE_CACHED_WORKFLOWS,
  localActivitySlots: LIFECYCLE_LOCAL_ACTIVITY_SLOTS,
  sidecarConnections: (config) => mailSendsInFlight(config.notifications.pool),
  createActivities: (deps) => ({
    ...createDiagnosticsActivities({ db: deps.db }),
    ...createDebtLifecycleActivities({ db: deps.db, mode: deps.mode, logger: deps.logger.child({ mode: deps.mode }) }),
    ...createDebtorNotificationActivities(notificationDeps(deps)),
    ...createTestPaymentActivities({
      db: deps.db,
      client: deps.client,
      mode: deps.mode,
      logger: deps.logger.child({ mode: deps.mode }),
    }),
    // Placements started on this queue before they had a queue and a process of their own finish here.
    ...createPlacementActivities({ db: deps.db, store: deps.documents, checkRow: createDebtRowChecker() }),
  }),
  startSidecar: async (deps) => {
    const { mode, db, databaseUrl, client, logger } = deps;
    const mailDeps = notificationDeps(deps, true);
    const consumers = [
      createDebtLifecycleConsumer({ mode, db, client, logger }),
      createNotificationsConsumer({
        ...mailDeps,
        client,
        logger,
        sendsInFlight: mailSendsInFlight(deps.notifications.pool),
      }),
    ];
    const relay = startOutboxRelay({ mode, db, databaseUrl, logger, consumers });
    const stopLag = reportOutboxLag({ db, mode, consumers: consumers.map((c) => c.name) });
    return async () => {
      stopLag();
      // The relay stops the dispatcher, which waits for its sends in flight; then the pool's connections close.
      await relay.stop();
      mailDeps.mailer.close();
    };
  },
});
