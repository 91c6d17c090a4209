/**
 * Lifecycle benchmark. (a) Debts raised per second with their workflows started and running: each debt
 * is one transaction (row, debtor, `debt.created` in the outbox, as POST /v1/debts writes them); the outbox relay's
 * lifecycle consumer starts `debt-<id>` on a Temporal dev server and a lifecycle worker runs it until its first
 * activity has loaded the debt. Compared with the same server's floor: no-op workflows running one no-op activity,
 * started by the same client at the same concurrency (as webhooks.bench.ts measures it). (b) The real lifecycle worker
 * process (workers/lifecycle.ts) with 10,000 open debts whose workflows wait on their plans' timers: its peak
 * resident memory (VmHWM). Standalone: `npx tsx test/bench/lifecycle.bench.ts`.
 *   LIFECYCLE_BENCH_DEBTS=1000 LIFECYCLE_BENCH_OPEN_DEBTS=10000
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createOrganization } from '../../core/access/organizations';
import { createDebt } from '../../core/debts/debt-creation';
import { ensureCursor } from '../../core/events/cursor';
import { startOutboxRelay } from '../../core/events/relay';
import { createDebtLifecycleConsumer, DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { debtWorkflowStartOptions } from '../../core/lifecycle/workflow-start';
import { createDb, type Db } from '../../core/platform/db';
import { createLogger } from '../../core/platform/logger';
import { WORKFLOW_TYPES } from '../../core/temporal/names';
import { LIFECYCLE_CACHED_WORKFLOWS } from '../../core/temporal/worker-process';
import { testEnv } from '../support/env';
import { isolatedEnv } from '../support/isolation';
import { nodeCommand } from '../support/processes';
import { closeSharedResources } from '../support/resources';
import { inParallel, noopWorkflowFloor } from './workflow-floor';
import { bundleWorkflows, startDevServer, uniqueTaskQueue } from '../support/temporal';
import { seedDebts } from './seed-debts';
import { peakMemoryMiB, ROOT } from './support';
import { silentLogger } from '../support/logger';

export interface LifecycleBenchResult {
  debts: number;
  debtsPerSecond: number;
  floorWorkflowsPerSecond: number;
  ratio: number;
  openDebts: number;
  openDebtsStartSeconds: number;
  /** The worker process once polling, before any debt: its peak is the workflow bundling's. */
  workerReadyPeakMiB: number;
  workerReadyRssMiB: number;
  workerPeakMiB: number;
  workerRssMiB: number;
  /** The lifecycle worker's workflow cache (workers/lifecycle.ts, per mode): open runs beyond it are evicted. */
  workerCachedWorkflows: number;
}

const CONCURRENCY = 32;
const DAY = 86_400_000;

/** Resolves when `condition` holds, polling every `intervalMs` (a benchmark waits; it asserts nothing). */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 600_000, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The production consumer's cursor after everything committed so far: the test database's old debts are not ours. */
async function skipBacklog(db: Db): Promise<void> {
  await ensureCursor(db, { name: DEBT_LIFECYCLE_CONSUMER, startAt: 'now' }, 'production');
  await db.raw(
    `update outbox_cursors set txid = greatest(txid, pg_snapshot_xmin(pg_current_snapshot())), seq = 0
      where consumer = ? and mode = 'production'`,
    [DEBT_LIFECYCLE_CONSUMER],
  );
}

function debtBody(i: number) {
  const ref = `${Date.now().toString(36)}-${i}`;
  return {
    debtorReferenceId: `BENCH-LC-${ref}`,
    debtorFirstName: 'Bench',
    debtorLastName: 'Lifecycle',
    debtorEmail: 'bench.lifecycle@example.com',
    originalPrincipal: '1250.5',
    externalAccountId: `ACCT-LC-${ref}`,
  };
}

/** (a): raise `count` debts at CONCURRENCY; debts/s from the first transaction to the last workflow's first load. */
async function raisedPerSecond(temporal: TestWorkflowEnvironment, db: Db, organizationId: string, count: number) {
  const taskQueue = uniqueTaskQueue('bench-lifecycle');
  const real = createDebtLifecycleActivities({ db });
  let loads = 0;
  let lastLoad = 0;
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle')),
    activities: {
      ...real,
      loadDebtLifecycle: async (debtId: string) => {
        const loaded = await real.loadDebtLifecycle(debtId);
        loads++;
        lastLoad = Date.now();
        return loaded;
      },
    },
  });
  const client = new Client({ connection: temporal.connection, namespace: temporal.namespace });
  await skipBacklog(db);
  const relay = startOutboxRelay({
    mode: 'production',
    db,
    databaseUrl: testEnv.databaseUrl,
    consumers: [
      createDebtLifecycleConsumer({ logger: silentLogger('test'), mode: 'production', db, client, taskQueue }),
    ],
    logger: createLogger({ level: 'warn', name: 'bench-lifecycle-relay' }),
  });
  const raise = async (n: number) => {
    const target = loads + n;
    const started = Date.now();
    await inParallel(n, CONCURRENCY, async (i) => {
      await db.transaction((trx) => createDebt(trx, organizationId, debtBody(i)));
    });
    await until(() => loads >= target, `${n} lifecycle workflows to load their debts`);
    return n / ((lastLoad - started) / 1000);
  };
  try {
    return await worker.runUntil(async () => {
      await raise(Math.min(100, count)); // warm-up: pools, JIT, the worker's first tasks
      return raise(count);
    });
  } finally {
    await relay.stop();
  }
}

/** Gives every debt of the organisation a running monthly plan whose first instalment is due in 30 days. */
async function givePlans(db: Db, organizationId: string): Promise<void> {
  const due = (months: number) => new Date(Date.now() + 30 * DAY + months * 30 * DAY).toISOString().slice(0, 10);
  const schedule = [0, 1, 2].map((m) => ({ dueDate: due(m), amount: '100', paid: '0' }));
  await db('debts')
    .where({ organization_id: organizationId })
    .update({
      status: 'Active',
      original_principal: '300',
      outstanding_principal: '300',
      plan_status: 'Active',
      plan_instalment_amount: '100',
      plan_frequency: 'Monthly',
      plan_instalment_count: 3,
      plan_instalments_paid: 0,
      plan_next_due_date: schedule[0]!.dueDate,
      plan_schedule: JSON.stringify(schedule),
    });
}

/** (b): the real worker process serving `open` debts' workflows, each loaded and waiting on its due-date timer. */
async function openDebtsMemory(temporal: TestWorkflowEnvironment, db: Db, organizationId: string, open: number) {
  await seedDebts(db, organizationId, open);
  await givePlans(db, organizationId);
  const [command, args] = nodeCommand('workers/lifecycle.ts');
  const child = spawn(command, args, {
    cwd: ROOT,
    env: isolatedEnv(
      {
        WORKER_MODES: 'production',
        PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
        REDIS_URL: testEnv.redisUrl,
        TEMPORAL_ADDRESS: temporal.address,
        METRICS_PORT: '0',
        LOG_LEVEL: 'info',
      },
      'worker',
    ),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let polling = false; // remembered: later log lines push the line out of `output`'s window
  child.stdout.on('data', (chunk: Buffer) => {
    const joined = output + chunk.toString('utf8');
    polling ||= joined.includes('polling task queue lifecycle');
    output = joined.slice(-10_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until(() => polling, 'the lifecycle worker to poll', 60_000, 100);
    const ready = { workerReadyPeakMiB: peakMemoryMiB(child.pid!), workerReadyRssMiB: rssMiB(child.pid!) };
    const debts = await db('debts').where({ organization_id: organizationId }).pluck('id');
    const started = Date.now();
    await inParallel(debts.length, CONCURRENCY, async (i) => {
      const options = debtWorkflowStartOptions({ debtId: debts[i]!, organizationId }, 'production');
      await temporal.client.workflow.start(WORKFLOW_TYPES.debtLifecycle, options);
    });
    // DebtStatus is set by the workflow once its first activity loaded the debt.
    const query = `WorkflowType = "${WORKFLOW_TYPES.debtLifecycle}" AND OrganizationId = "${organizationId}" AND DebtStatus = "Active"`;
    await until(
      async () => (await temporal.client.workflow.count(query)).count >= open,
      `${open} workflows to load`,
      1_800_000,
      1_000,
    );
    const openDebtsStartSeconds = (Date.now() - started) / 1000;
    return {
      openDebtsStartSeconds,
      ...ready,
      workerPeakMiB: peakMemoryMiB(child.pid!),
      workerRssMiB: rssMiB(child.pid!),
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

export async function benchLifecycle(
  options: { debts?: number; openDebts?: number } = {},
): Promise<LifecycleBenchResult> {
  const debts = options.debts ?? Number(process.env.LIFECYCLE_BENCH_DEBTS ?? 1000);
  const openDebts = options.openDebts ?? Number(process.env.LIFECYCLE_BENCH_OPEN_DEBTS ?? 10_000);
  const temporal = await startDevServer({ persisted: true });
  const db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 20 } });
  const raised = await createOrganization(db, { name: 'Bench lifecycle', mode: 'production' });
  const waiting = await createOrganization(db, { name: 'Bench lifecycle open debts', mode: 'production' });
  try {
    const debtsPerSecond = await raisedPerSecond(temporal, db, raised.id, debts);
    const floorWorkflowsPerSecond = await noopWorkflowFloor(temporal, debts, CONCURRENCY);
    console.log(`\nlifecycle (a): ${debtsPerSecond.toFixed(1)} debts/s, floor ${floorWorkflowsPerSecond.toFixed(1)}/s`);
    const memory = await openDebtsMemory(temporal, db, waiting.id, openDebts);
    const result: LifecycleBenchResult = {
      debts,
      debtsPerSecond,
      floorWorkflowsPerSecond,
      ratio: debtsPerSecond / floorWorkflowsPerSecond,
      openDebts,
      ...memory,
      workerCachedWorkflows: LIFECYCLE_CACHED_WORKFLOWS,
    };
    printResult(result);
    return result;
  } finally {
    await db('organizations').whereIn('id', [raised.id, waiting.id]).delete();
    await db.destroy();
    await temporal.teardown();
  }
}

function printResult(r: LifecycleBenchResult): void {
  const f = (n: number) => n.toFixed(1);
  console.log('\nlifecycle: debt raised → debt.created → consumer starts debt-<id> → first activity loaded it');
  console.log(`  raised:   ${f(r.debtsPerSecond)} debts/s with workflows running, over ${r.debts} debts`);
  console.log(`  floor:    ${f(r.floorWorkflowsPerSecond)} no-op workflows (one no-op activity)/s`);
  console.log(`  ratio:    ${r.ratio.toFixed(2)} of the floor (target ≥ 0.5)`);
  console.log(
    `  worker process with ${r.openDebts} open debts on plan timers (started and loaded in ${f(r.openDebtsStartSeconds)} s): ` +
      `peak ${r.workerPeakMiB} MiB (VmHWM), now ${r.workerRssMiB} MiB RSS; workflow cache ${r.workerCachedWorkflows} runs`,
  );
  console.log(
    `  the same process once polling, before any debt: peak ${r.workerReadyPeakMiB} MiB (bundling), RSS ${r.workerReadyRssMiB} MiB`,
  );
}

if (require.main === module) {
  benchLifecycle()
    .then(() => closeSharedResources())
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
