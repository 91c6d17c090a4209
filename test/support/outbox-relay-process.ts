/**
 * A relay process for the crash test: runs the outbox relay with one recording consumer against the test database.
 * With KILL_AT_BATCH=n it announces `mid-batch` on stdout in the middle of batch n (its rows written, its cursor not
 * yet moved) and then waits there, so the test can SIGKILL it at exactly that point.
 */
import { startOutboxRelay } from '../../core/events/relay';
import { createDb } from '../../core/platform/db';
import { createLogger } from '../../core/platform/logger';
import { recordingConsumer } from './outbox-recorder';

const databaseUrl = process.env.DATABASE_URL ?? '';
const killAt = Number(process.env.KILL_AT_BATCH ?? 0);
const db = createDb(databaseUrl);
const consumer = recordingConsumer({
  name: process.env.CONSUMER ?? 'crash-test',
  midBatch: async (batch) => {
    if (batch !== killAt) return;
    process.stdout.write('mid-batch\n');
    await new Promise(() => undefined); // hold the transaction open until the test kills us
  },
});
startOutboxRelay({
  mode: 'production',
  db,
  databaseUrl,
  consumers: [consumer],
  logger: createLogger({ level: 'silent', name: 'outbox-relay-child' }),
  batchSize: Number(process.env.BATCH_SIZE ?? 50),
  pollIntervalMs: 100,
});
process.stdout.write('relay started\n');
