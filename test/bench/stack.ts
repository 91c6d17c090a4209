/**
 * The whole stack of the end-to-end scenarios (burst.bench.ts, placements.bench.ts), as production runs it: a scratch
 * database of its own (migrated), a Temporal dev server, the compiled API, the lifecycle worker, one or more webhooks
 * workers and the placements worker (each its own process, compiled), a webhook receiver, the bench process's maildev
 * sink, and a document directory of its own shared by the API and the workers (an uploaded placement is read by the
 * placements worker).
 * Stopping it drops the database.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { outboxLag } from '../../core/events/outbox-lag';
import { createDb, type Db } from '../../core/platform/db';
import { migrate } from '../../scripts/migrate';
import { inlineDebtBody } from '../support/debt-api';
import { sharedMailSink, type MailSink } from '../support/mail-sink';
import { killGroup } from '../support/processes';
import { createScratchDatabase, dropScratchDatabase } from '../support/scratch-databases';
import {
  startLifecycleWorker,
  startPlacementsWorker,
  startWebhooksWorker,
  type ServiceProcess,
} from '../support/service-processes';
import { startDevServer } from '../support/temporal';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { localWebhookConfig, localWebhookEnv } from '../support/webhooks';
import { COMPILED_API, startApiProcess, type ApiProcess, type BenchTenant } from './support';

export interface BenchStack {
  /** The scratch database's name (dropped when the stack stops). */
  database: string;
  db: Db;
  temporal: TestWorkflowEnvironment;
  api: ApiProcess;
  receiver: WebhookReceiver;
  /** The lifecycle worker first, then the webhooks workers, then the placements worker. */
  workers: ServiceProcess[];
  env: Record<string, string>;
  /** The bench process's maildev sink, where the workers send debtor mail. */
  mail: MailSink;
  documentDir: string;
}

/** Starts the stack on scratch database `database` (dropped and created afresh) with `webhooksWorkers` of them. */
export async function startBenchStack(options: { database: string; webhooksWorkers: number }): Promise<BenchStack> {
  const webhooks = localWebhookConfig();
  const databaseUrl = await createScratchDatabase(options.database);
  const db = createDb(databaseUrl, { pool: { min: 0, max: 4 } });
  await migrate(db, 'up');
  const temporal = await startDevServer({ persisted: true });
  const receiver = await startWebhookReceiver();
  const sink = await sharedMailSink();
  const documentDir = mkdtempSync(path.join(os.tmpdir(), 'bench-stack-documents-'));
  const shared = {
    TEMPORAL_ADDRESS: temporal.address,
    SMTP_URL: sink.smtpUrl,
    DOCUMENT_DIR: documentDir,
    ...localWebhookEnv(webhooks),
  };
  const env = {
    ...shared,
    WORKER_MODES: 'production',
    PRODUCTION_DATABASE_URL: databaseUrl,
    PRODUCTION_TEMPORAL_NAMESPACE: temporal.namespace ?? 'default',
    METRICS_PORT: '0',
  };
  const api = await startApiProcess(
    {
      ...shared,
      API_MODE: 'production',
      DATABASE_URL: databaseUrl,
      TEMPORAL_NAMESPACE: temporal.namespace ?? 'default',
    },
    [],
    COMPILED_API,
  );
  const started = await Promise.allSettled([
    startLifecycleWorker(env, 'dist/workers/lifecycle.js'),
    ...Array.from({ length: options.webhooksWorkers }, () => startWebhooksWorker(env, 'dist/workers/webhooks.js')),
    startPlacementsWorker(env, 'dist/workers/placements.js'),
  ]);
  const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stack = { database: options.database, db, temporal, api, receiver, workers, env, mail: sink, documentDir };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    // What did start is stopped: a bench that cannot start its stack must not leave half of it running.
    await stopBenchStack(stack);
    throw failed.reason;
  }
  return stack;
}

/** The stack's worker processes that run `entry` (e.g. `webhooks.js`: every webhooks worker), in start order. */
export function workersRunning(stack: BenchStack, entry: string): BenchStack['workers'] {
  return stack.workers.filter((w) => w.child.spawnargs.some((a) => a.endsWith(entry)));
}

export async function stopBenchStack(stack: BenchStack): Promise<void> {
  stack.workers.forEach(killGroup);
  await Promise.all(stack.workers.map((w) => w.exited));
  await Promise.allSettled([stack.api.stop(), stack.receiver.close()]);
  await stack.db.destroy();
  await stack.temporal.teardown();
  rmSync(stack.documentDir, { recursive: true, force: true });
  await dropScratchDatabase(stack.database); // a large scenario's rows do not stay on the shared server
}

export async function countOf(db: Db, sql: string, bindings: string[]): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: string }[] }>(`select count(*) as n from ${sql}`, bindings);
  return Number(rows[0]?.n ?? 0);
}

/** Each of `consumers` has taken every committed event of production (nothing after its cursor). */
export async function consumersCaughtUp(db: Db, consumers: string[]): Promise<boolean> {
  const lags = await outboxLag(db, 'production', consumers);
  return lags.length === consumers.length && lags.every((l) => l.lag === 0);
}

/** One debt raised through the stack's `POST /v1/debts` (an inline debtor; `overrides` change the body); its id. */
export async function raiseDebtOn(
  stack: BenchStack,
  tenant: BenchTenant,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await fetch(`${stack.api.baseUrl}/v1/debts`, {
    method: 'POST',
    headers: {
      authorization: tenant.authorization,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify(inlineDebtBody(overrides)),
  });
  if (res.status !== 201) throw new Error(`POST /v1/debts answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
