import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Mode } from '../../core/platform/config';
import { TASK_QUEUES, workflowIds, type TaskQueueName } from '../../core/temporal/names';
import { diagnosticProbeWorkflow } from '../../workflows/diagnostics';
import { freePort } from '../bench/support';
import { testEnv } from '../support/env';
import { killGroup, nodeCommand, threadNiceValues } from '../support/processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';

const ROOT = join(__dirname, '..', '..');
/** Worker configuration read from the environment: the test sets these itself, never inherits them. */
const WORKER_VARS = [
  'WORKER_MODES',
  'PRODUCTION_DATABASE_URL',
  'SANDBOX_DATABASE_URL',
  'PRODUCTION_TEMPORAL_NAMESPACE',
  'SANDBOX_TEMPORAL_NAMESPACE',
  'REDIS_URL',
  'TEMPORAL_ADDRESS',
  'LOG_LEVEL',
];

interface WorkerProcess {
  child: ChildProcess;
  stdoutLines: () => string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The worker's source (`npm run worker:<queue>` runs its compiled build), in its own process group for clean-up. */
function spawnWorker(queue: TaskQueueName, vars: Record<string, string>): WorkerProcess {
  const env = { ...process.env };
  for (const name of WORKER_VARS) delete env[name];
  const [command, args] = nodeCommand(`workers/${queue}.ts`);
  const child = spawn(command, args, { cwd: ROOT, env: { ...env, ...vars }, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdoutLines: () => stdout.split('\n').filter(Boolean), stderr: () => stderr, exited };
}

describe('worker processes', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;
  let worker: WorkerProcess | undefined;

  before(async () => {
    temporal = await startDevServer();
  });
  afterEach(() => killGroup(worker));
  after(async () => {
    await temporal?.teardown();
  });

  const namespaceOf: Record<Mode, string> = { production: DEV_SERVER_NAMESPACES[0], sandbox: DEV_SERVER_NAMESPACES[1] };

  function startWorker(queue: TaskQueueName): WorkerProcess {
    worker = spawnWorker(queue, {
      TEMPORAL_ADDRESS: temporal.address,
      PRODUCTION_TEMPORAL_NAMESPACE: namespaceOf.production,
      SANDBOX_TEMPORAL_NAMESPACE: namespaceOf.sandbox,
      PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      SANDBOX_DATABASE_URL: testEnv.databaseUrl,
      LOG_LEVEL: 'info',
    });
    return worker;
  }

  /** Runs the probe through the worker: it answers only once the worker polls. Fails fast if the worker dies. */
  async function probe(proc: WorkerProcess, queue: TaskQueueName, mode: Mode) {
    const client = new Client({ connection: temporal.connection, namespace: namespaceOf[mode] });
    // Racing it marks this rejection handled, so the worker's normal exit later raises nothing.
    const died = proc.exited.then((code) => {
      throw new Error(`worker exited (${code}) before answering:\n${proc.stderr()}`);
    });
    return Promise.race([
      client.workflow.execute(diagnosticProbeWorkflow, {
        taskQueue: queue,
        workflowId: workflowIds.diagnosticProbe(randomUUID()),
        args: [randomUUID()],
      }),
      died,
    ]);
  }

  /** `nice`: the CPU priority every thread of the process runs at (placements' imports take what others leave). */
  const cases: { queue: TaskQueueName; modes: Mode[]; signal: NodeJS.Signals; nice: number }[] = [
    { queue: TASK_QUEUES.webhooks, modes: ['production', 'sandbox'], signal: 'SIGTERM', nice: 0 },
    { queue: TASK_QUEUES.lifecycle, modes: ['production', 'sandbox'], signal: 'SIGTERM', nice: 0 },
    { queue: TASK_QUEUES.placements, modes: ['production', 'sandbox'], signal: 'SIGTERM', nice: 10 },
    { queue: TASK_QUEUES.sandbox, modes: ['sandbox'], signal: 'SIGINT', nice: 0 },
  ];

  for (const { queue, modes, signal, nice } of cases) {
    it(`${queue}: polls its queue in the ${modes.join(' and ')} namespace(s) by default at nice ${nice}, serves the probe, and exits 0 after ${signal}`, async () => {
      const proc = startWorker(queue);
      for (const mode of modes) {
        const { databaseTime } = await probe(proc, queue, mode);
        expect(Date.parse(databaseTime), `${mode} probe`).to.be.closeTo(Date.now(), 60_000);
      }
      expect(new Set(threadNiceValues(proc.child.pid!)), 'nice of its threads').to.deep.equal(new Set([nice]));

      proc.child.kill(signal);
      expect(await proc.exited, proc.stderr()).to.equal(0);

      const logs = proc.stdoutLines().map((line) => JSON.parse(line) as { msg: string; namespace?: string });
      const polled = logs.filter((l) => l.msg === `polling task queue ${queue} in namespace ${l.namespace}`);
      expect(
        polled.map((l) => l.namespace),
        queue,
      ).to.have.members(modes.map((mode) => namespaceOf[mode]));
      const messages = logs.map((l) => l.msg);
      const requested = messages.indexOf('shutdown requested: draining in-flight tasks');
      expect(requested, messages.join(' | ')).to.be.greaterThan(-1);
      expect(messages.indexOf('shutdown complete'), messages.join(' | ')).to.be.greaterThan(requested);
    });
  }

  it('serves its counters on the internal metrics port when one is configured', async () => {
    const port = await freePort();
    worker = spawnWorker(TASK_QUEUES.webhooks, {
      TEMPORAL_ADDRESS: temporal.address,
      PRODUCTION_TEMPORAL_NAMESPACE: namespaceOf.production,
      WORKER_MODES: 'production',
      PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      METRICS_PORT: String(port),
    });
    await probe(worker, TASK_QUEUES.webhooks, 'production');
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).to.contain('client_api_webhook_deliveries_reconciled_total');
    expect(text).to.contain('client_api_retention_purged_rows_total');
    expect(text).to.contain('process_resident_memory_bytes');
  });

  it('exits 1 with a fatal log naming the namespace when a mode namespace does not exist', async () => {
    worker = spawnWorker(TASK_QUEUES.webhooks, {
      TEMPORAL_ADDRESS: temporal.address,
      PRODUCTION_TEMPORAL_NAMESPACE: namespaceOf.production,
      SANDBOX_TEMPORAL_NAMESPACE: 'no-such-namespace',
      PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      SANDBOX_DATABASE_URL: testEnv.databaseUrl,
    });
    expect(await worker.exited).to.equal(1);
    const fatal = worker
      .stdoutLines()
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } })
      .filter((entry) => entry.level === 60);
    expect(fatal).to.have.length(1);
    expect(fatal[0]!.msg).to.equal('worker failed');
    expect(fatal[0]!.err?.message).to.contain('no-such-namespace');
  });

  it('exits 78 with a message naming each bad variable when the configuration is invalid', async () => {
    worker = spawnWorker(TASK_QUEUES.lifecycle, {
      WORKER_MODES: 'nonsense',
      TEMPORAL_ADDRESS: 'not an address',
      WORKER_NICE: '20', // above what nice allows
    });
    expect(await worker.exited).to.equal(78);
    expect(worker.stderr())
      .to.contain('WORKER_MODES is invalid')
      .and.to.contain('TEMPORAL_ADDRESS is invalid')
      .and.to.contain('WORKER_NICE');
    expect(worker.stdoutLines()).to.deep.equal([]);
  });
});
