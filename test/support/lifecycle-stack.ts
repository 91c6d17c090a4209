/**
 * The real debt lifecycle for API tests: a Temporal dev server with a lifecycle worker (the real workflow and
 * activities against the test database) in each mode's namespace, started once, on first use, and shared by every
 * test app of the run. Test apps get triggers that start it lazily, so suites that never move a debt through its
 * lifecycle never start Temporal.
 */
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createDebtTriggers, type DebtTriggers } from '../../core/lifecycle/triggers';
import type { Mode } from '../../core/platform/mode';
import { NAMESPACES, TASK_QUEUES } from '../../core/temporal/names';
import { testDb } from './resources';
import { bundleWorkflows, startDevServer, uniqueTaskQueue } from './temporal';

export interface LifecycleStack {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  client(mode: Mode): Client;
}

interface Running extends LifecycleStack {
  stop(): Promise<void>;
}

let running: Promise<Running> | undefined;

async function start(): Promise<Running> {
  const env = await startDevServer();
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.lifecycle);
  const workflowBundle = await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle'));
  const workers = await Promise.all(
    Object.values(NAMESPACES).map((namespace) =>
      Worker.create({
        connection: env.nativeConnection,
        namespace,
        taskQueue,
        workflowBundle,
        activities: createDebtLifecycleActivities({ db: testDb() }),
      }),
    ),
  );
  const runs = workers.map((worker) => worker.run());
  const clients = new Map<Mode, Client>();
  return {
    env,
    taskQueue,
    client(mode) {
      const client = clients.get(mode) ?? new Client({ connection: env.connection, namespace: NAMESPACES[mode] });
      clients.set(mode, client);
      return client;
    },
    async stop() {
      for (const worker of workers) worker.shutdown();
      await Promise.allSettled(runs);
      await env.teardown();
    },
  };
}

/** The shared stack, started on first call. */
export function testLifecycle(): Promise<LifecycleStack> {
  running ??= start();
  return running;
}

export async function stopTestLifecycle(): Promise<void> {
  const stack = running;
  running = undefined;
  if (stack) await (await stack).stop();
}

/** Triggers for a test app of `mode`: the first call starts the shared stack. */
export function testDebtTriggers(mode: Mode, requestId?: string): DebtTriggers {
  let triggers: Promise<DebtTriggers> | undefined;
  const real = () =>
    (triggers ??= testLifecycle().then((stack) =>
      createDebtTriggers({ db: testDb(), client: stack.client(mode), mode, taskQueue: stack.taskQueue }, requestId),
    ));
  return {
    accept: async (...args) => (await real()).accept(...args),
    dispute: async (...args) => (await real()).dispute(...args),
    resolveDispute: async (...args) => (await real()).resolveDispute(...args),
    agreePlan: async (...args) => (await real()).agreePlan(...args),
    reportPayment: async (...args) => (await real()).reportPayment(...args),
    close: async (...args) => (await real()).close(...args),
    writeOff: async (...args) => (await real()).writeOff(...args),
    advance: async (...args) => (await real()).advance(...args),
    forRequest: (id) => testDebtTriggers(mode, id),
  };
}
