/**
 * Webhooks benchmark: events raised through the API (POST /v1/webhooks/test) to deliveries acknowledged by a
 * local receiver, through the real relay, Temporal dev server, worker process and signed HTTP. Prints deliveries/s,
 * p50/p99 commit→receipt at half that rate, the same again while 1,000 deliveries of another tenant are owed to
 * one tarpit receiver (accepts, never answers: as many in flight as admission lets one organisation have, the rest
 * waiting outside the server; reported too: while they arrive, a burst), and the same server's throughput for a
 * no-op workflow running one no-op activity (the engine's floor), as a ratio. Targets:
 * ≥ 0.9× the floor, p99 < 500 ms at half load, with and without the tarpit. "Commit" is the event's created_at (its
 * transaction's start), so the latency is if anything overstated. Standalone: `npx tsx test/bench/webhooks.bench.ts`.
 *   WEBHOOK_BENCH_EVENTS=1000 WEBHOOK_BENCH_PACED_SECONDS=10 WEBHOOK_BENCH_TARPIT_EVENTS=1000
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal as proto } from '@temporalio/proto';
import { TASK_QUEUES } from '../../core/temporal/names';
import { DELIVERIES_IN_FLIGHT_PER_ORGANIZATION } from '../../core/webhooks/delivery-consumer';
import { createDb, type Db } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { closeSharedResources } from '../support/resources';
import { killGroup } from '../support/processes';
import { startWebhooksWorker, type ServiceProcess } from '../support/service-processes';
import { setTimeout as sleep } from 'node:timers/promises';
import { inParallel, noopWorkflowFloor } from './workflow-floor';
import { startDevServer } from '../support/temporal';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, localWebhookConfig, localWebhookEnv } from '../support/webhooks';
import { createScratchDatabase } from '../support/scratch-databases';
import { migrate } from '../../scripts/migrate';
import { createGate, waitFor } from '../support/wait';
import { check, compare, observe, recordMemory, type BenchReport } from './report';
import { cpuPerItem, pidsNamed, type ProcessSet } from './cpu';
import {
  COMPILED_API,
  benchTenant,
  buildCompiled,
  childPids,
  mean,
  meanByProcess,
  peakMemoryMiB,
  percentile,
  startApiProcess,
  type ApiProcess,
  type BenchTenant,
} from './support';

type CpuMeasured = Awaited<ReturnType<typeof cpuPerItem<number>>>;

export interface WebhooksBenchResult {
  events: number;
  deliveriesPerSecond: number;
  pacedRate: number;
  p50Ms: number;
  p99Ms: number;
  tarpitEvents: number;
  tarpitP50Ms: number;
  tarpitP99Ms: number;
  /** Paced deliveries not received within two minutes (their latency counts as the time waited). */
  tarpitUndelivered: number;
  /** The same paced load started as the tarpit's deliveries were raised: another tenant's burst (reported). */
  burstP50Ms: number;
  burstP99Ms: number;
  burstUndelivered: number;
  floorWorkflowsPerSecond: number;
  ratio: number;
  /** Peak memory (VmHWM) of the webhooks worker process. */
  workerPeakMiB: number;
  /** µs of CPU per delivery (ours) and per workflow (the floor), by process (cpu.ts). */
  cpuUsPerDelivery: Record<string, number>;
  cpuUsPerFloorWorkflow: Record<string, number>;
}

const CONCURRENCY = 32;
/** How long the worker may drain its attempts when the rig stops (its own grace is 15 s), before it is killed. */
const WORKER_STOP_MS = 40_000;
/**
 * Slices of the sustained load and of the floor, taken in turn, each of `events`: a smaller slice would weigh the
 * pipeline's depth (API, relay, start, task, attempt: a fixed latency per slice) more than the floor's.
 */
const SLICES = 2;

interface Rig {
  api: ApiProcess;
  tenant: BenchTenant;
  receiver: WebhookReceiver;
  db: Db;
}

async function raisePing(rig: Rig, tenant = rig.tenant): Promise<string> {
  const res = await fetch(`${rig.api.baseUrl}/v1/webhooks/test`, {
    method: 'POST',
    headers: { authorization: tenant.authorization },
  });
  if (res.status !== 202) throw new Error(`POST /v1/webhooks/test answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { eventId: string }).eventId;
}

/**
 * Receipt minus commit for each event, once every one has been received. With `partial`, deliveries still missing
 * after two minutes count as the time waited so far (a lower bound) instead of failing the run.
 */
async function latencies(
  rig: Rig,
  eventIds: string[],
  partial = false,
): Promise<{ ms: number[]; first: number; last: number; missing: number }> {
  const wanted = new Set(eventIds);
  const deadline = Date.now() + 120_000;
  const receipts = new Map<string, number>();
  while (receipts.size < wanted.size) {
    for (const r of rig.receiver.requests)
      if (wanted.has(r.body.id) && !receipts.has(r.body.id)) receipts.set(r.body.id, r.receivedAt);
    if (Date.now() > deadline) {
      if (!partial) throw new Error(`only ${receipts.size} of ${wanted.size} deliveries arrived`);
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const missing = wanted.size - receipts.size;
  for (const id of eventIds) if (!receipts.has(id)) receipts.set(id, Date.now());
  const rows: { id: string; created_at: Date }[] = await rig
    .db('events')
    .whereIn('id', eventIds)
    .select('id', 'created_at');
  const commits = new Map(rows.map((row) => [row.id, row.created_at.getTime()]));
  const ms = eventIds.map((id) => receipts.get(id)! - commits.get(id)!);
  return { ms, first: Math.min(...commits.values()), last: Math.max(...receipts.values()), missing };
}

async function sustained(rig: Rig, events: number): Promise<number> {
  const ids: string[] = [];
  await inParallel(events, CONCURRENCY, async () => void ids.push(await raisePing(rig)));
  const { first, last } = await latencies(rig, ids);
  return events / ((last - first) / 1000);
}

async function paced(rig: Rig, rate: number, seconds: number, partial = false) {
  const total = Math.max(1, Math.round(rate * seconds));
  const started = Date.now();
  const sends: Promise<string>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    sends.push(raisePing(rig));
  }
  return latencies(rig, await Promise.all(sends), partial);
}

/**
 * Another tenant's receiver accepts and never answers. `count` of its events are raised, and the paced run for the
 * bench tenant starts as soon as their deliveries are recorded and the admitted ones started (`burst`: their first
 * tasks still arriving); then, once those have had their first task (each attempt hanging on the tarpit), the paced
 * run again (`queued`, the target's case). Returns both runs' latencies; the tarpit is released (and closed)
 * afterwards.
 */
async function pacedBehindTarpit(rig: RunningRig, count: number, rate: number, seconds: number) {
  const tarpit = await startWebhookReceiver();
  const released = createGate();
  tarpit.respondWith(() => released.opened.then(() => ({ status: 200 })));
  try {
    const hanging = await benchTenant(rig.db, 'Bench webhooks tarpit');
    await configureReceiver(localWebhookConfig(), hanging.organizationId, tarpit.url, rig.db);
    await inParallel(count, CONCURRENCY, async () => void (await raisePing(rig, hanging)));
    await tarpitDeliveriesAdmitted(rig, hanging.organizationId, count);
    const burst = await paced(rig, rate, seconds, true);
    await firstAttemptsTaken(rig); // now the 1,000 are owed to the tarpit, as in steady state, not arriving
    const queued = await paced(rig, rate, seconds, true);
    return { burst, queued };
  } finally {
    released.open();
    await tarpit.close();
  }
}

/**
 * Waits (up to 5 minutes) until the relay has recorded a delivery for each of the tenant's events and started as many
 * as admission lets one organisation have in flight (`DELIVERIES_IN_FLIGHT_PER_ORGANIZATION`, core/webhooks/
 * delivery-consumer.ts): a delivery counts as in flight until its first attempt ends, which on the tarpit is its
 * timeout, so the rest stay owed in PostgreSQL and are started as those end. That is the steady state of a receiver
 * that hangs: a bounded number of its deliveries in the server, the rest waiting their turn outside it.
 */
async function tarpitDeliveriesAdmitted(rig: Rig, organizationId: string, count: number): Promise<void> {
  const admitted = Math.min(count, DELIVERIES_IN_FLIGHT_PER_ORGANIZATION);
  await waitFor(
    async () => {
      const [row] = await rig
        .db('webhook_deliveries')
        .where({ organization_id: organizationId })
        .select(
          rig.db.raw('count(*)::int as recorded'),
          rig.db.raw('(count(*) filter (where workflow_started_at is not null))::int as started'),
        );
      const { recorded, started } = row as unknown as { recorded: number; started: number };
      return recorded >= count && started >= admitted;
    },
    { what: `${count} tarpit deliveries recorded, ${admitted} started`, timeoutMs: 300_000, intervalMs: 250 },
  );
}

/**
 * Waits (up to 5 minutes) until the server holds no workflow task for the webhooks queue, twice in a row: every
 * delivery started has had its first attempt, answered `busy` (then waits on its timer) or hanging on the tarpit.
 * Until then another tenant's burst is still arriving, its tasks alternated with this tenant's by the server's
 * fairness, and at half load this tenant needs about all of its half (docs/operators/performance.md).
 */
async function firstAttemptsTaken(rig: RunningRig): Promise<void> {
  let emptyReads = 0;
  await waitFor(
    async () => {
      const { stats } = await rig.temporal.client.workflowService.describeTaskQueue({
        namespace: rig.temporal.namespace ?? 'default',
        taskQueue: { name: TASK_QUEUES.webhooks },
        taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        reportStats: true,
      });
      if (!stats) throw new Error('the Temporal server reports no task queue stats (DescribeTaskQueue reportStats)');
      emptyReads = Number(stats.approximateBacklogCount ?? 0) === 0 ? emptyReads + 1 : 0;
      return emptyReads >= 2;
    },
    { what: 'the webhooks workflow task queue to empty', timeoutMs: 300_000, intervalMs: 500 },
  );
}

/**
 * The rig's own database, dropped and made anew for each run. On a shared one (the test database, as before), the
 * webhooks worker's reconciler restarted every delivery left Pending there, by test runs or by an earlier run's
 * tarpit, ahead of this run's own: a run once found 32,000 and delivered 42 of its 1,000 in two minutes, and after a
 * full test run the 837 left by the tests cost the dev server half again as much CPU per delivery.
 */
const RIG_DATABASE = 'client_api_bench_webhooks';

/** The rig's database, empty and migrated. */
async function freshRigDatabase(): Promise<string> {
  const url = await createScratchDatabase(RIG_DATABASE);
  const db = createDb(url, { pool: { min: 0, max: 1 } });
  try {
    await migrate(db, 'up');
  } finally {
    await db.destroy();
  }
  return url;
}

interface RunningRig extends Rig {
  /** The webhooks worker process: its relay and its Temporal worker. */
  worker: ServiceProcess;
  temporal: TestWorkflowEnvironment;
  /** Stops relay and worker. */
  stopPipeline: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Dev server, the API and the webhooks worker (its relay and its Temporal worker) as their own compiled processes, as
 * production runs them, and a local receiver in the bench process.
 */
async function startRig(): Promise<RunningRig> {
  const webhooks = localWebhookConfig();
  const databaseUrl = await freshRigDatabase();
  const db = createDb(databaseUrl, { pool: { min: 0, max: 4 } }); // the bench's own reads and tenants
  const temporal = await startDevServer({ persisted: true });
  const receiver = await startWebhookReceiver();
  const redisUrl = process.env.BENCH_REDIS_URL ?? testEnv.redisUrl;
  const api = await startApiProcess(
    {
      API_MODE: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      ...localWebhookEnv(webhooks),
    },
    [],
    COMPILED_API,
  );
  const worker = await startWebhooksWorker(
    {
      TEMPORAL_ADDRESS: temporal.address,
      WORKER_MODES: 'production',
      PRODUCTION_DATABASE_URL: databaseUrl,
      PRODUCTION_TEMPORAL_NAMESPACE: temporal.namespace ?? 'default',
      REDIS_URL: redisUrl,
      METRICS_PORT: '0',
      ...localWebhookEnv(webhooks),
    },
    'dist/workers/webhooks.js',
  );
  const tenant = await benchTenant(db, 'Bench webhooks');
  await configureReceiver(webhooks, tenant.organizationId, receiver.url, db);
  const stopPipeline = async () => {
    worker.child.kill('SIGTERM'); // drains in-flight attempts, as on a deploy
    const drained = await Promise.race([worker.exited.then(() => true), sleep(WORKER_STOP_MS).then(() => false)]);
    if (!drained) killGroup(worker);
    await worker.exited;
  };
  const close = async () => {
    await stopPipeline();
    await Promise.allSettled([api.stop(), receiver.close()]);
    await db.destroy();
    await temporal.teardown();
  };
  return { api, worker, tenant, receiver, db, temporal, stopPipeline, close };
}

/** Runs the three measurements on a fresh rig and prints them; the lead's `npm run bench` calls this. */
export async function benchWebhooks(
  options: { events?: number; pacedSeconds?: number; tarpitEvents?: number; report?: BenchReport } = {},
): Promise<WebhooksBenchResult> {
  const events = options.events ?? Number(process.env.WEBHOOK_BENCH_EVENTS ?? 1000);
  const pacedSeconds = options.pacedSeconds ?? Number(process.env.WEBHOOK_BENCH_PACED_SECONDS ?? 10);
  const tarpitEvents = options.tarpitEvents ?? Number(process.env.WEBHOOK_BENCH_TARPIT_EVENTS ?? 1000);
  const rig = await startRig();
  try {
    await sustained(rig, Math.min(100, events)); // warm-up: connections, caches, JIT
    // Ours and the floor in interleaved slices, as support.ts's `interleaved` does for HTTP loads: the dev server's
    // speed drifts within a run, and back to back the ratio moved by ±0.1 with it. The floor runs while the pipeline
    // is idle, and before the tarpit, whose 1,000 retrying workflows would load the same server.
    const processes: ProcessSet = {
      temporal: () => childPids('start-dev'),
      'webhooks worker (relay, worker)': () => [rig.worker.child.pid!],
      'bench process (receiver, load)': () => [process.pid],
      api: () => [rig.api.pid],
      postgres: () => pidsNamed('postgres'),
    };
    const slices = { ours: [] as CpuMeasured[], floor: [] as CpuMeasured[] };
    for (let i = 0; i < SLICES; i++) {
      slices.ours.push(
        await cpuPerItem(
          processes,
          () => sustained(rig, events),
          () => events,
        ),
      );
      slices.floor.push(
        await cpuPerItem(
          processes,
          () => noopWorkflowFloor(rig.temporal, events, CONCURRENCY),
          () => events,
        ),
      );
    }
    const deliveriesPerSecond = mean(slices.ours.map((m) => m.result));
    const floorWorkflowsPerSecond = mean(slices.floor.map((m) => m.result));
    const pacedRate = deliveriesPerSecond / 2;
    const { ms } = await paced(rig, pacedRate, pacedSeconds);
    const { burst, queued: behindTarpit } = await pacedBehindTarpit(rig, tarpitEvents, pacedRate, pacedSeconds);
    const workerPeakMiB = peakMemoryMiB(rig.worker.child.pid!); // before it exits
    await rig.stopPipeline();
    const result = {
      events,
      deliveriesPerSecond,
      pacedRate,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      tarpitEvents,
      tarpitP50Ms: percentile(behindTarpit.ms, 50),
      tarpitP99Ms: percentile(behindTarpit.ms, 99),
      tarpitUndelivered: behindTarpit.missing,
      burstP50Ms: percentile(burst.ms, 50),
      burstP99Ms: percentile(burst.ms, 99),
      burstUndelivered: burst.missing,
      floorWorkflowsPerSecond,
      ratio: deliveriesPerSecond / floorWorkflowsPerSecond,
      workerPeakMiB,
      cpuUsPerDelivery: meanByProcess(slices.ours.map((m) => m.perItemUs)),
      cpuUsPerFloorWorkflow: meanByProcess(slices.floor.map((m) => m.perItemUs)),
    };
    printResult(result);
    if (options.report) toReport(options.report, result, rig);
    return result;
  } finally {
    await rig.close();
  }
}

/** For a latency figure's name: how many of its deliveries never arrived (`latencies` counts each as 2 minutes). */
function countedAsTwoMinutes(undelivered: number): string {
  return undelivered ? ` (${undelivered} not delivered within 2 min: counted as 2 min)` : '';
}

function toReport(report: BenchReport, r: WebhooksBenchResult, rig: RunningRig): void {
  const scenario = 'webhook deliveries';
  compare(
    report,
    scenario,
    {
      label: `ours: API event → signed delivery acknowledged (p50/p99 at half load)`,
      perSecond: r.deliveriesPerSecond,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      cpuUsPerItem: r.cpuUsPerDelivery,
    },
    {
      label: 'no-op workflow running one no-op activity (floor)',
      perSecond: r.floorWorkflowsPerSecond,
      p50Ms: NaN,
      p99Ms: NaN,
      cpuUsPerItem: r.cpuUsPerFloorWorkflow,
    },
    0.9,
  );
  const p99 = { scenario, unit: 'ms', bound: { atMost: 500 } };
  check(report, { ...p99, name: `p99 commit→receipt at half load (${r.pacedRate.toFixed(1)}/s)`, value: r.p99Ms });
  check(report, {
    ...p99,
    name:
      `p99 commit→receipt at half load, ${r.tarpitEvents} deliveries queued behind one tarpit receiver` +
      countedAsTwoMinutes(r.tarpitUndelivered),
    value: r.tarpitP99Ms,
  });
  observe(report, {
    scenario,
    name:
      `p99 commit→receipt at half load, started as another tenant's ${r.tarpitEvents} deliveries to the tarpit ` +
      `were raised (a burst)` +
      countedAsTwoMinutes(r.burstUndelivered),
    value: r.burstP99Ms,
    unit: 'ms',
  });
  recordMemory(report, 'api process (webhooks rig)', rig.api.pid, peakMemoryMiB(rig.api.pid));
  for (const pid of childPids('start-dev')) recordMemory(report, 'Temporal dev server', pid, peakMemoryMiB(pid));
  recordMemory(report, 'webhooks worker process (relay, worker)', rig.worker.child.pid!, r.workerPeakMiB);
}

function printResult(r: WebhooksBenchResult): void {
  const f = (n: number) => n.toFixed(1);
  console.log('\nwebhooks: API event → signed delivery acknowledged by a local receiver');
  console.log(`  sustained:  ${f(r.deliveriesPerSecond)} deliveries/s over ${SLICES} × ${r.events} events`);
  console.log(`  at ${f(r.pacedRate)}/s (half): commit→receipt p50 ${f(r.p50Ms)} ms, p99 ${f(r.p99Ms)} ms`);
  console.log(
    `  same, ${r.tarpitEvents} queued behind a tarpit: p50 ${f(r.tarpitP50Ms)} ms, p99 ${f(r.tarpitP99Ms)} ms` +
      ` (${r.tarpitUndelivered} not delivered within 2 min)`,
  );
  console.log(
    `  same, started as those ${r.tarpitEvents} were raised (a burst): p50 ${f(r.burstP50Ms)} ms, ` +
      `p99 ${f(r.burstP99Ms)} ms (${r.burstUndelivered} not delivered within 2 min)`,
  );
  console.log(`  floor:      ${f(r.floorWorkflowsPerSecond)} no-op workflows (one no-op activity)/s`);
  console.log(`  ratio:      ${r.ratio.toFixed(2)} of the floor (target ≥ 0.9; p99 target < 500 ms)`);
  const cpu = (perItem: Record<string, number>) =>
    Object.entries(perItem)
      .map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`)
      .join(' · ');
  console.log(`  CPU ms per delivery: ${cpu(r.cpuUsPerDelivery)}`);
  console.log(`  CPU ms per floor workflow: ${cpu(r.cpuUsPerFloorWorkflow)}`);
}

if (require.main === module) {
  buildCompiled(); // `npm run bench` builds before its scenarios; run on its own, this one does
  benchWebhooks()
    .then(() => closeSharedResources())
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
