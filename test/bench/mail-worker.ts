/**
 * The mail scenario's worker (mail.bench.ts): the lifecycle worker's debtor notifications consumer for one mode, as
 * workers/lifecycle.ts runs it (its outbox relay, the consumer's dispatcher, the pooled transport of
 * SMTP_MAX_CONNECTIONS and SMTP_MAX_MESSAGES_PER_SECOND), in its own process so that its CPU and memory are its own,
 * without the Temporal worker beside it (a `debt.created` event starts nothing in Temporal from this consumer).
 * Answers `/` once started, for startBenchProcess.
 */
import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { startOutboxRelay } from '../../core/events/relay';
import { createMailer } from '../../core/notifications/mail';
import { mailSendsInFlight } from '../../core/notifications/mail-dispatcher';
import { createNotificationsConsumer } from '../../core/notifications/notifications-consumer';
import { createDb } from '../../core/platform/db';
import { createLogger } from '../../core/platform/logger';
import { createSecretBox } from '../../core/platform/secret-box';
import { loadWorkerConfig } from '../../core/platform/worker-config';
import { workerPool } from '../../core/temporal/worker-process';

void (async () => {
  const config = loadWorkerConfig(process.env, 'production');
  const [modeConfig] = config.modes;
  if (!modeConfig) throw new Error('WORKER_MODES names no mode');
  const { mode } = modeConfig;
  const { smtpUrl, from, replyTo, pool } = config.notifications;
  const logger = createLogger({ level: config.logLevel, name: 'bench-mail-worker', format: 'json' });
  const sendsInFlight = mailSendsInFlight(pool);
  // The lifecycle worker's pool: its activity slots (20) and the sidecar's connections, the dispatcher's included.
  const db = createDb(modeConfig.databaseUrl, { pool: workerPool(20, 0, sendsInFlight), logger });
  const mailer = createMailer({ smtpUrl, from, pool });
  const client = new Client({ connection: Connection.lazy({ address: config.temporalAddress }) });
  const consumer = createNotificationsConsumer({
    db,
    mode,
    logger,
    client,
    mailer,
    replyTo,
    secretBox: createSecretBox(config.webhooks.secretKeys),
    publicBaseUrl: config.notifications.publicBaseUrls[mode],
    sendsInFlight,
  });
  const relay = startOutboxRelay({ mode, db, databaseUrl: modeConfig.databaseUrl, logger, consumers: [consumer] });
  const server = createServer((_req, res) => res.end('ok')).listen(Number(process.env.PORT), process.env.HOST);
  process.once('SIGTERM', () => {
    void relay.stop().then(async () => {
      mailer.close();
      server.close();
      await db.destroy();
      process.exit(0);
    });
  });
})();
