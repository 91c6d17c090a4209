/**
 * Webhooks benchmark (issue 5): events raised through the API (POST /v1/webhooks/test) to deliveries acknowledged by a
 * local receiver, through the real relay, Temporal dev server, worker and signed HTTP. Prints sustained deliveries/s,
 * p50/p99 commit→receipt at half that rate, and the same server's throughput for a no-op workflow running one no-op
 * activity (the engine's floor), as a ratio. "Commit" is the event's created_at (its transaction's start), so the
 * latency is if anything overstated. Standalone: `npx tsx test/bench/webhooks.bench.ts`.
 *   WEBHOOK_BENCH_EVENTS=1000 WEBHOOK_BENCH_PACED_SECONDS=10
 */
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookDeliveryActivities } from '../../activities/webhook-delivery';
import { createSecretBox } from '../../core/platform/secret-box';
import { createDb, type Db } from '../../core/platform/db';
import { createLogger } from '../../core/platform/logger';
import { startOutboxRelay } from '../../core/events/relay';
import { createWebhookDeliveryConsumer } from '../../core/webhooks/delivery-consumer';
import { testEnv } from '../support/env';
import { closeSharedResources } from '../support/resources';
import { bundleWorkflows, startDevServer, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant, type TestTenant } from '../support/tenants';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, localWebhookConfig, localWebhookEnv } from '../support/webhooks';
import { childPids, peakMemoryMiB, startApiProcess, type ApiProcess } from './support';

export interface WebhooksBenchResult {
  events: number;
  deliveriesPerSecond: number;
  pacedRate: number;
  p50Ms: number;
  p99Ms: number;
  floorWorkflowsPerSecond: number;
  ratio: number;
}

const CONCURRENCY = 32;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++);
  });
  await Promise.all(lanes);
}

interface Rig {
  api: ApiProcess;
  tenant: TestTenant;
  receiver: WebhookReceiver;
  db: Db;
}

async function raisePing(rig: Rig): Promise<string> {
  const res = await fetch(`${rig.api.baseUrl}/v1/webhooks/test`, { method: 'POST', headers: rig.tenant.headers });
  if (res.status !== 202) throw new Error(`POST /v1/webhooks/test answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { eventId: string }).eventId;
}

/** Receipt minus commit for each event, once every one has been received. */
async function latencies(rig: Rig, eventIds: string[]): Promise<{ ms: number[]; first: number; last: number }> {
  const wanted = new Set(eventIds);
  const deadline = Date.now() + 120_000;
  const receipts = new Map<string, number>();
  while (receipts.size < wanted.size) {
    for (const r of rig.receiver.requests)
      if (wanted.has(r.body.id) && !receipts.has(r.body.id)) receipts.set(r.body.id, r.receivedAt);
    if (Date.now() > deadline) throw new Error(`only ${receipts.size} of ${wanted.size} deliveries arrived`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const rows: { id: string; created_at: Date }[] = await rig
    .db('events')
    .whereIn('id', eventIds)
    .select('id', 'created_at');
  const commits = new Map(rows.map((row) => [row.id, row.created_at.getTime()]));
  const ms = eventIds.map((id) => receipts.get(id)! - commits.get(id)!);
  return { ms, first: Math.min(...commits.values()), last: Math.max(...receipts.values()) };
}

async function sustained(rig: Rig, events: number): Promise<number> {
  const ids: string[] = [];
  await inParallel(events, CONCURRENCY, async () => void ids.push(await raisePing(rig)));
  const { first, last } = await latencies(rig, ids);
  return events / ((last - first) / 1000);
}

async function paced(rig: Rig, rate: number, seconds: number): Promise<number[]> {
  const total = Math.max(1, Math.round(rate * seconds));
  const started = Date.now();
  const sends: Promise<string>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    sends.push(raisePing(rig));
  }
  return (await latencies(rig, await Promise.all(sends))).ms;
}

/** No-op workflow + no-op activity on the same server: time from the first start to the last activity run. */
async function floor(temporal: TestWorkflowEnvironment, count: number): Promise<number> {
  const taskQueue = uniqueTaskQueue('bench-floor');
  let lastRun = 0;
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('./noop-workflow')),
    activities: { noop: async () => void (lastRun = Date.now()) },
  });
  return worker.runUntil(async () => {
    const started = Date.now();
    const handles: Promise<unknown>[] = [];
    await inParallel(count, CONCURRENCY, async (i) => {
      const handle = await temporal.client.workflow.start('noopWorkflow', {
        taskQueue,
        workflowId: `noop-${taskQueue}-${i}`,
      });
      handles.push(handle.result());
    });
    await Promise.all(handles);
    return count / ((lastRun - started) / 1000);
  });
}

interface RunningRig extends Rig {
  temporal: TestWorkflowEnvironment;
  /** Stops relay and worker (before the floor runs on the same server). */
  stopPipeline: () => Promise<void>;
  close: () => Promise<void>;
}

/** Dev server, API process, in-process relay and worker (as workers/webhooks.ts wires them), local receiver. */
async function startRig(): Promise<RunningRig> {
  const webhooks = localWebhookConfig();
  const temporal = await startDevServer();
  const db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 20 } });
  const receiver = await startWebhookReceiver();
  const api = await startApiProcess({
    API_MODE: 'production',
    DATABASE_URL: testEnv.databaseUrl,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
    LOG_LEVEL: 'warn',
    ...localWebhookEnv(webhooks),
  });
  const taskQueue = uniqueTaskQueue('bench-webhooks');
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/webhooks')),
    activities: createWebhookDeliveryActivities({
      db,
      webhooks,
      secretBox: createSecretBox(webhooks.secretKeys),
    }),
  });
  const client = new Client({ connection: temporal.connection, namespace: temporal.namespace });
  const logger = createLogger({ level: 'warn', name: 'bench-relay' });
  const relay = startOutboxRelay({
    mode: 'production',
    db,
    databaseUrl: testEnv.databaseUrl,
    consumers: [createWebhookDeliveryConsumer({ mode: 'production', db, client, taskQueue })],
    logger,
  });
  const running = worker.run();
  const tenant = await createTestTenant({ hourlyLimit: 10_000_000, dailyLimit: 100_000_000 });
  await configureReceiver(webhooks, tenant.organization.id, receiver.url);
  const stopPipeline = async () => {
    await relay.stop();
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  };
  const close = async () => {
    await stopPipeline();
    await Promise.allSettled([api.stop(), receiver.close()]);
    await db.destroy();
    await temporal.teardown();
  };
  return { api, tenant, receiver, db, temporal, stopPipeline, close };
}

/** Runs the three measurements on a fresh rig and prints them; the lead's `npm run bench` calls this. */
export async function benchWebhooks(
  options: { events?: number; pacedSeconds?: number } = {},
): Promise<WebhooksBenchResult> {
  const events = options.events ?? Number(process.env.WEBHOOK_BENCH_EVENTS ?? 1000);
  const pacedSeconds = options.pacedSeconds ?? Number(process.env.WEBHOOK_BENCH_PACED_SECONDS ?? 10);
  const rig = await startRig();
  try {
    await sustained(rig, Math.min(100, events)); // warm-up: connections, caches, JIT
    const deliveriesPerSecond = await sustained(rig, events);
    const pacedRate = deliveriesPerSecond / 2;
    const ms = await paced(rig, pacedRate, pacedSeconds);
    await rig.stopPipeline();
    const floorWorkflowsPerSecond = await floor(rig.temporal, events);
    const result = {
      events,
      deliveriesPerSecond,
      pacedRate,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      floorWorkflowsPerSecond,
      ratio: deliveriesPerSecond / floorWorkflowsPerSecond,
    };
    printResult(result);
    console.log(
      `  peak memory: api process ${peakMemoryMiB(rig.api.pid)} MiB, Temporal dev server ${childPids('start-dev')
        .map((pid) => `${peakMemoryMiB(pid)} MiB`)
        .join(', ')}, bench process (relay + worker) ${peakMemoryMiB(process.pid)} MiB`,
    );
    return result;
  } finally {
    await rig.close();
  }
}

function printResult(r: WebhooksBenchResult): void {
  const f = (n: number) => n.toFixed(1);
  console.log('\nwebhooks: API event → signed delivery acknowledged by a local receiver');
  console.log(`  sustained:  ${f(r.deliveriesPerSecond)} deliveries/s over ${r.events} events`);
  console.log(`  at ${f(r.pacedRate)}/s (half): commit→receipt p50 ${f(r.p50Ms)} ms, p99 ${f(r.p99Ms)} ms`);
  console.log(`  floor:      ${f(r.floorWorkflowsPerSecond)} no-op workflows (one no-op activity)/s`);
  console.log(`  ratio:      ${r.ratio.toFixed(2)} of the floor (target ≥ 0.5; p99 target < 1000 ms)`);
}

if (require.main === module) {
  benchWebhooks()
    .then(() => closeSharedResources())
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
