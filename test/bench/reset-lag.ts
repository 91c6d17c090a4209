/**
 * The lifecycle consumer's lag while a large sandbox tenant is reset, measured with the reset of
 * the day (core/sandbox/reset-tenant.ts: its wipe and reseed, then its workflow ends and starts):
 *   npx tsx test/bench/reset-lag.ts [debts=20000] [--with-workflows]   (BENCH_DATABASE_URL, or TEST_DATABASE_URL)
 * With `--with-workflows` every seeded debt first gets its running `debt-<id>` workflow (on a queue no worker polls),
 * so the reset also ends them all: what a large tenant's reset costs against its activity's timeout.
 * A sandbox tenant gets `debts` debts (one debtor per ten), as many events with a delivery each and a portal link per
 * debt (every debt raised with an email has one; deleting a debt deletes its link), seeded in SQL. A
 * writer commits a production `debt.created` every 20 ms; the lifecycle consumer (its own cursor, run by the real
 * relay, starting workflows on a dev server with no worker) records when each event reaches it. Lag is that moment
 * minus the writer's commit. Printed: the worst lag before, during and after the reset, and the reset's duration.
 * Production and sandbox share the horizon here as they do whenever their databases share a server.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { createOrganization } from '../../core/access/organizations';
import type { OutboxConsumer } from '../../core/events/consumer';
import { recordEvent } from '../../core/events/outbox';
import { startOutboxRelay } from '../../core/events/relay';
import { createDebtLifecycleConsumer } from '../../core/lifecycle/lifecycle-consumer';
import { createDb, type Db } from '../../core/platform/db';
import { debtWorkflowStartOptions } from '../../core/lifecycle/workflow-start';
import { createLogger } from '../../core/platform/logger';
import { resetSandboxTenant } from '../../core/sandbox/reset-tenant';
import { NAMESPACES, WORKFLOW_TYPES } from '../../core/temporal/names';
import { testEnv } from '../support/env';
import { prepareTestSlot } from '../support/scratch-databases';
import { startDevServer, uniqueTaskQueue } from '../support/temporal';
import { seedDebts, seedPortalLinks } from './seed-debts';
import { seedEventsAndDeliveries } from './seed-lists';
import { silentLogger } from '../support/logger';

const WRITE_EVERY_MS = 20;
type Phase = 'before' | 'during' | 'after';

async function main(): Promise<void> {
  const debts = Number(process.argv[2] ?? 20_000);
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? testEnv.databaseUrl;
  if (databaseUrl === testEnv.databaseUrl) await prepareTestSlot(); // this process's slot: a fresh copy of the template
  const db = createDb(databaseUrl, { pool: { min: 0, max: 8 }, unboundedStatements: true }); // the seeders
  const temporal = await startDevServer({ persisted: true });
  const logger = createLogger({ level: 'warn', name: 'reset-lag' });
  const sandbox = await createOrganization(db, { name: `reset-lag sandbox ${debts}`, mode: 'sandbox' });
  const production = await createOrganization(db, { name: 'reset-lag writer', mode: 'production' });
  const seeding = Date.now();
  await seedDebts(db, sandbox.id, debts);
  await seedEventsAndDeliveries(db, sandbox.id, debts);
  await seedPortalLinks(db, sandbox.id);
  console.log(
    `seeded ${debts} debts, events, deliveries and portal links in ${((Date.now() - seeding) / 1000).toFixed(1)} s`,
  );
  if (process.argv.includes('--with-workflows')) await startEveryWorkflow(db, clientOf(temporal), sandbox.id);

  const committedAt = new Map<string, { at: number; phase: Phase }>();
  const lags: Record<Phase, number[]> = { before: [], during: [], after: [] };
  const lifecycle = createDebtLifecycleConsumer({
    logger: silentLogger('test'),
    mode: 'production',
    db,
    client: new Client({ connection: temporal.connection, namespace: NAMESPACES.production }),
    taskQueue: uniqueTaskQueue('reset-lag'),
  });
  const consumer: OutboxConsumer = {
    ...lifecycle,
    name: `debt-lifecycles-reset-lag-${randomUUID()}`,
    startAt: 'now',
    consume(trx, events) {
      const at = Date.now();
      for (const event of events) {
        const committed = committedAt.get(event.id);
        if (committed) lags[committed.phase].push(at - committed.at);
      }
      return lifecycle.consume(trx, events);
    },
  };
  const relay = startOutboxRelay({ mode: 'production', db, databaseUrl, consumers: [consumer], logger });

  let phase: Phase = 'before';
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const event = await db.transaction((trx) =>
        recordEvent(trx, production.id, 'debt.created', { debt: { id: randomUUID() } }),
      );
      committedAt.set(event.id, { at: Date.now(), phase });
      await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
    }
  })();
  try {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    phase = 'during';
    const started = Date.now();
    const report = await resetSandboxTenant(
      { db, client: clientOf(temporal), lifecycleTaskQueue: uniqueTaskQueue('reset-lag-seed') },
      sandbox.id,
      new Date(),
    );
    const resetSeconds = (Date.now() - started) / 1000;
    phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    writing = false;
    await writer;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const removed = report.outcome === 'reset' ? JSON.stringify(report.removed) : report.reason;
    const ended = report.outcome === 'reset' ? report.workflowsEnded : 0;
    console.log(`reset of ${debts} debts: ${resetSeconds.toFixed(2)} s, ${ended} workflows ended, removed ${removed}`);
    for (const name of ['before', 'during', 'after'] as const) {
      const values = lags[name];
      const worst = Math.max(0, ...values);
      const p50 = [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      console.log(
        `  lifecycle consumer lag ${name} the reset: worst ${worst} ms, p50 ${p50} ms (${values.length} events)`,
      );
    }
  } finally {
    writing = false;
    await writer.catch(() => undefined);
    await relay.stop();
    await db('organizations').whereIn('id', [sandbox.id, production.id]).delete();
    await db.destroy();
    await temporal.teardown();
  }
}

/** Starts `debt-<id>` for each of the tenant's debts, 50 at a time, on a task queue no worker polls. */
async function startEveryWorkflow(db: Db, client: Client, organizationId: string): Promise<void> {
  const started = Date.now();
  const ids = await db('debts').where({ organization_id: organizationId }).pluck<string[]>('id');
  const taskQueue = uniqueTaskQueue('reset-lag-idle');
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(
      ids
        .slice(i, i + 50)
        .map((debtId) =>
          client.workflow.start(
            WORKFLOW_TYPES.debtLifecycle,
            debtWorkflowStartOptions({ debtId, organizationId }, 'sandbox', taskQueue),
          ),
        ),
    );
  }
  console.log(`started ${ids.length} debt workflows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function clientOf(temporal: { connection: Client['connection'] }): Client {
  return new Client({ connection: temporal.connection, namespace: NAMESPACES.sandbox });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
