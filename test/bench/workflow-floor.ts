/** What the Temporal benches share: bounded parallelism, and the no-op-workflow floor they compare against. */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { bundleWorkflows, uniqueTaskQueue } from '../support/temporal';

/** Runs `task(0)` … `task(count - 1)`, at most `concurrency` at once. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** A Temporal server to measure: the test environment's, or a client and worker connection of a running server. */
export type FloorServer = Pick<TestWorkflowEnvironment, 'client' | 'nativeConnection' | 'namespace'>;

/**
 * The floor: `count` no-op workflows, each running one no-op activity, on the same server; workflows per second from
 * the first start to the last activity run.
 */
export async function noopWorkflowFloor(temporal: FloorServer, count: number, concurrency: number): Promise<number> {
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
    const results: Promise<unknown>[] = [];
    await inParallel(count, concurrency, async (i) => {
      const handle = await temporal.client.workflow.start('noopWorkflow', {
        taskQueue,
        workflowId: `noop-${taskQueue}-${i}`,
      });
      results.push(handle.result());
    });
    await Promise.all(results);
    return count / ((lastRun - started) / 1000);
  });
}
