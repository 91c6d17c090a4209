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
import { createTriggerLimit } from '../../core/lifecycle/trigger-limit';
import { createDebtTriggers, type DebtTriggers } from '../../core/lifecycle/triggers';
import type { Mode } from '../../core/platform/mode';
import { createSandboxResets, type SandboxResets } from '../../core/sandbox/resets';
import { createPlacementRuns, type PlacementRuns } from '../../core/placements/placement-runs';
import { NAMESPACES, TASK_QUEUES } from '../../core/temporal/names';
import { testDb } from './resources';
import { bundleWorkflows, startDevServer, uniqueTaskQueue } from './temporal';
import { waitFor } from './wait';

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

/** Calls through the triggers and resets below still in flight: the stack is stopped once none is. */
let inFlight = 0;

/** Runs one call on the current stack, counted in `inFlight`. */
async function onStack<T>(call: (stack: LifecycleStack) => Promise<T>): Promise<T> {
  inFlight++;
  try {
    return await call(await testLifecycle());
  } finally {
    inFlight--;
  }
}

/**
 * Stops the shared stack (a root hook: after the run, or in a parallel run after each file). A call an app made in
 * the background as its test ended (a sandbox use recorded after the answer) is let finish first, for up to 10 s:
 * closed under it, its connection would fail it in whichever test the process runs next.
 */
export async function stopTestLifecycle(): Promise<void> {
  const stack = running;
  if (!stack) return;
  await waitFor(() => inFlight === 0, { what: 'lifecycle calls in flight to end', timeoutMs: 10_000 }).catch(
    () => undefined,
  );
  running = undefined;
  await (await stack).stop();
}

/** Triggers for a test app of `mode`: the first call starts the shared stack. */
export function testDebtTriggers(mode: Mode, requestId?: string, limit = createTriggerLimit()): DebtTriggers {
  // Made for the stack running when called, so an app that outlives a stopped stack starts and uses the next one;
  // the cap on triggers in flight is the app's, one for all its calls, as in the API process.
  const on = <T>(call: (triggers: DebtTriggers) => Promise<T>) =>
    onStack((stack) =>
      call(
        createDebtTriggers(
          { db: testDb(), client: stack.client(mode), mode, taskQueue: stack.taskQueue, limit },
          requestId,
        ),
      ),
    );
  return {
    accept: (...args) => on((t) => t.accept(...args)),
    dispute: (...args) => on((t) => t.dispute(...args)),
    resolveDispute: (...args) => on((t) => t.resolveDispute(...args)),
    agreePlan: (...args) => on((t) => t.agreePlan(...args)),
    reportPayment: (...args) => on((t) => t.reportPayment(...args)),
    close: (...args) => on((t) => t.close(...args)),
    writeOff: (...args) => on((t) => t.writeOff(...args)),
    advance: (...args) => on((t) => t.advance(...args)),
    forRequest: (id) => testDebtTriggers(mode, id, limit),
  };
}

/**
 * Sandbox resets for a test app of the sandbox host, on the shared stack's dev server (started on first use): real
 * signal-with-starts of `sandbox-reset-<orgId>` on a queue no worker serves, so the runs wait and reset nothing.
 * Suites that test resets themselves pass their own (sandbox-reset.test.ts).
 */
export function testSandboxResets(): SandboxResets {
  const taskQueue = uniqueTaskQueue('resets');
  const on = <T>(call: (resets: SandboxResets) => Promise<T>) =>
    onStack((stack) => call(createSandboxResets({ client: stack.client('sandbox'), taskQueue })));
  return {
    start: (organizationId) => on((r) => r.start(organizationId)),
    recordUse: (organizationId) => on((r) => r.recordUse(organizationId)),
    resetNow: (organizationId) => on((r) => r.resetNow(organizationId)),
  };
}

/**
 * Placement starts for test apps: real starts of `placement-<id>` in the mode's namespace on the shared stack, on a
 * queue no worker serves, so the runs wait and import nothing (the placement stays `Validating`). Suites that test
 * the import itself run a worker of their own (test/workflows/placement*.test.ts).
 */
export function testPlacementRuns(mode: Mode): PlacementRuns {
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.placements);
  return {
    start: (organizationId, placementId) =>
      onStack((stack) =>
        createPlacementRuns({ client: stack.client(mode), taskQueue }).start(organizationId, placementId),
      ),
  };
}
