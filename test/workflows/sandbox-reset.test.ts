/**
 * `sandbox-reset-<orgId>` on the time-skipping server, at the real durations, with a recording activity: the reset
 * comes exactly 7 days after the last use and not a second before; a use on day 6 moves it to day 13; an idle tenant
 * is reset once, not weekly; `resetNow` resets at once; each reset continues the workflow as new; and a reset whose
 * worker dies mid-activity is completed by another worker, once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { SandboxResetActivities } from '../../activities/sandbox-reset';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import {
  IDLE_PERIOD_MS,
  resetNowSignal,
  sandboxResetWorkflow,
  statusQuery,
  usedSignal,
} from '../../workflows/sandbox-reset';
import { bundleWorkflows, startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createGate, waitFor } from '../support/wait';

type ResetHandle = WorkflowHandleWithFirstExecutionRunId<typeof sandboxResetWorkflow>;

const DAY = 86_400_000;
const SECOND = 1_000;

describe('sandboxResetWorkflow on the time-skipping server (real durations)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.sandbox);
  /** Organisation ids whose reset the activity was asked for, in order. */
  const resets: string[] = [];
  const recording: SandboxResetActivities = {
    resetSandboxTenant: async (organizationId) => {
      resets.push(organizationId);
      return { outcome: 'skipped', reason: 'organization not found' };
    },
    startTenantDebtWorkflows: async () => ({ started: 0 }),
  };

  async function startWorker(activities: SandboxResetActivities, queue = taskQueue): Promise<Worker> {
    return Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/sandbox')),
      activities,
      shutdownGraceTime: '100ms',
    });
  }

  before(async () => {
    env = await startTimeSkipping();
    worker = await startWorker(recording);
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  async function startTenant(queue = taskQueue): Promise<{ organizationId: string; handle: ResetHandle }> {
    const organizationId = randomUUID();
    const handle = await env.client.workflow.start(sandboxResetWorkflow, {
      taskQueue: queue,
      workflowId: workflowIds.sandboxReset(organizationId),
      args: [{ organizationId }],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: organizationId }],
    });
    return { organizationId, handle };
  }

  /** Moves the test server's clock to `at` (epoch ms); it never moves back. */
  async function skipTo(at: number): Promise<void> {
    const now = await env.currentTimeMs();
    if (at > now) await env.sleep(at - now);
  }

  const resetsOf = (organizationId: string) => resets.filter((id) => id === organizationId).length;

  /**
   * True once the tenant's current run is waiting: its last workflow task done, no activity pending, nothing new in
   * its history since. The time-skipping test server holds a query that arrives while a run continues as new (or
   * before a run's first workflow task) and never answers it; worse, the held query keeps time skipping locked, so
   * every later `env.sleep` runs in real time (a hang in about one quiet parallel run in four, and in every run with
   * a query timed out in a loop under load). The real server answers from the new run. So tests ask only a run at
   * rest.
   */
  async function settled(organizationId: string): Promise<boolean> {
    const current = await env.client.workflow.getHandle(workflowIds.sandboxReset(organizationId)).describe();
    if (current.status.name !== 'RUNNING' || (current.raw.pendingActivities ?? []).length > 0) return false;
    const { events } = await env.client.workflow
      .getHandle(workflowIds.sandboxReset(organizationId), current.runId)
      .fetchHistory();
    const last = events?.at(-1);
    return Boolean(
      last?.workflowTaskCompletedEventAttributes ||
      last?.timerStartedEventAttributes ||
      last?.upsertWorkflowSearchAttributesEventAttributes,
    );
  }

  /** The workflow's status query, asked of a run at rest (see `settled`). Every status read of these tests uses it. */
  async function status(organizationId: string) {
    await waitFor(() => settled(organizationId), { what: 'the run to come to rest' });
    return env.client.workflow.getHandle(workflowIds.sandboxReset(organizationId)).query(statusQuery);
  }
  const waitForResets = (organizationId: string, count: number) =>
    waitFor(() => resetsOf(organizationId) >= count, { what: `reset number ${count}` });

  /** When the reset activity was scheduled, in the workflow's clock, in the run that did it. */
  async function resetScheduledAt(handle: ResetHandle, runId: string): Promise<number> {
    const history = await env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
    const scheduled = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'resetSandboxTenant',
    );
    return tsToMs(scheduled!.eventTime);
  }

  it('resets exactly 7 days after the last use (the sign-up), and not one second before', async () => {
    const { organizationId, handle } = await startTenant();
    const firstRunId = handle.firstExecutionRunId;
    const before = await status(organizationId);
    const lastUse = Date.parse(before.lastUsedAt);
    expect(before.resetAt).to.equal(new Date(lastUse + IDLE_PERIOD_MS).toISOString());
    expect(before.lastResetAt).to.equal(null);

    await skipTo(lastUse + IDLE_PERIOD_MS - SECOND);
    expect(resetsOf(organizationId)).to.equal(0);
    await skipTo(lastUse + IDLE_PERIOD_MS);
    await waitForResets(organizationId, 1);
    expect(await resetScheduledAt(handle, firstRunId)).to.be.within(
      lastUse + IDLE_PERIOD_MS,
      lastUse + IDLE_PERIOD_MS + SECOND - 1,
    );
    // The reset ended the run: the next one carries on with the workflow's facts (history stays small).
    await waitFor(async () => (await handle.describe()).runId !== firstRunId, { what: 'a continued-as-new run' });
    const after = await status(organizationId);
    expect(after.resetAt).to.equal(null);
    expect(after.lastUsedAt).to.equal(before.lastUsedAt);
  });

  it('a use on day 6 moves the reset to day 13', async () => {
    const { organizationId, handle } = await startTenant();
    const signedUp = Date.parse((await status(organizationId)).lastUsedAt);
    await skipTo(signedUp + 6 * DAY);
    await handle.signal(usedSignal);
    const moved = await waitFor(
      async () => {
        const s = await status(organizationId);
        return Date.parse(s.lastUsedAt) >= signedUp + 6 * DAY && s;
      },
      { what: 'the use to be recorded' },
    );
    const use = Date.parse(moved.lastUsedAt);
    expect(use - signedUp).to.be.within(6 * DAY, 6 * DAY + 5 * SECOND);
    expect(moved.resetAt).to.equal(new Date(use + IDLE_PERIOD_MS).toISOString());

    await skipTo(signedUp + 7 * DAY + 3_600_000); // past the original day 7: nothing happens
    expect(resetsOf(organizationId)).to.equal(0);
    await skipTo(use + IDLE_PERIOD_MS - SECOND);
    expect(resetsOf(organizationId)).to.equal(0);
    await skipTo(use + IDLE_PERIOD_MS);
    await waitForResets(organizationId, 1);
    expect(await resetScheduledAt(handle, handle.firstExecutionRunId)).to.be.within(
      use + IDLE_PERIOD_MS,
      use + IDLE_PERIOD_MS + SECOND - 1,
    );
  });

  it('resets an idle tenant once, not every week; the next use arms it again', async () => {
    const { organizationId, handle } = await startTenant();
    const signedUp = Date.parse((await status(organizationId)).lastUsedAt);
    await skipTo(signedUp + IDLE_PERIOD_MS);
    await waitForResets(organizationId, 1);
    await skipTo(signedUp + 60 * DAY);
    expect(resetsOf(organizationId)).to.equal(1);
    expect((await status(organizationId)).resetAt).to.equal(null);

    await env.client.workflow.getHandle(handle.workflowId).signal(usedSignal);
    const armed = await waitFor(async () => (await status(organizationId)).resetAt, { what: 'the workflow to arm' });
    await skipTo(Date.parse(armed));
    await waitForResets(organizationId, 2);
  });

  it('resetNow resets at once and counts as a use', async () => {
    const { organizationId, handle } = await startTenant();
    const signedUp = Date.parse((await status(organizationId)).lastUsedAt);
    await skipTo(signedUp + 2 * DAY);
    await handle.signal(resetNowSignal);
    await waitForResets(organizationId, 1);
    const after = await waitFor(
      async () => {
        const s = await status(organizationId);
        return s.lastResetAt !== null && s;
      },
      { what: 'the reset to be recorded' },
    );
    expect(Date.parse(after.lastUsedAt)).to.be.at.least(signedUp + 2 * DAY);
    expect(after.resetAt).to.equal(new Date(Date.parse(after.lastUsedAt) + IDLE_PERIOD_MS).toISOString());
    await skipTo(Date.parse(after.resetAt!) - SECOND);
    expect(resetsOf(organizationId)).to.equal(1);
  });

  /** A worker that only runs the reset activity on `queue` (the workflows run on another worker, which stays up). */
  function activityWorker(queue: string, resetSandboxTenant: SandboxResetActivities['resetSandboxTenant']) {
    return Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      activities: { resetSandboxTenant, startTenantDebtWorkflows: recording.startTenantDebtWorkflows },
      shutdownGraceTime: '100ms',
    });
  }

  it('a reset whose worker dies mid-activity is completed by another worker, once', async () => {
    const queue = uniqueTaskQueue(TASK_QUEUES.sandbox);
    const workflows = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/sandbox')),
    });
    const workflowsRun = workflows.run();
    const entered = createGate();
    const doomed = await activityWorker(queue, async () => {
      entered.open();
      // Never finishes on its own: the worker is shut down under it, which is all the attempt reports.
      await Context.current().cancelled.catch(() => undefined);
      throw new Error('the worker shut down mid-reset');
    });
    const doomedRun = doomed.run();
    const completed: string[] = [];
    try {
      const { organizationId, handle } = await startTenant(queue);
      await handle.signal(resetNowSignal);
      await entered.opened;
      doomed.shutdown();
      await doomedRun;

      const rescuer = await activityWorker(queue, async (id) => {
        completed.push(id);
        return { outcome: 'skipped', reason: 'organization not found' };
      });
      await rescuer.runUntil(
        waitFor(
          async () => {
            // If the doomed attempt's failure did not reach the server before its worker stopped, the attempt ends at
            // its start-to-close timeout: the test server's clock runs to it instead of the wall clock.
            if (completed.length === 0) await env.sleep(10 * SECOND);
            return completed.length > 0;
          },
          { what: 'the rescuing worker to run the reset' },
        ),
      );
      expect((await status(organizationId)).lastResetAt).to.be.a('string');
      expect((await status(organizationId)).resetting).to.equal(false);
      expect(completed).to.deep.equal([organizationId]);
    } finally {
      workflows.shutdown();
      await workflowsRun;
    }
  });

  it('a resetNow that arrives while a reset runs is not dropped: another reset follows, in the next run', async () => {
    const queue = uniqueTaskQueue(TASK_QUEUES.sandbox);
    const workflows = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/sandbox')),
    });
    const entered = createGate();
    const release = createGate();
    const done: string[] = [];
    const activities = await activityWorker(queue, async (id) => {
      entered.open();
      await release.opened; // the first reset is still running when the second request arrives
      done.push(id);
      return { outcome: 'skipped', reason: 'organization not found' };
    });
    await Promise.all(
      [workflows.run(), activities.run()]
        .map((p) => p.catch(() => undefined))
        .concat([
          (async () => {
            try {
              const { organizationId, handle } = await startTenant(queue);
              await handle.signal(resetNowSignal);
              await entered.opened;
              await handle.signal(resetNowSignal);
              const signalled = async () =>
                ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
              await waitFor(async () => (await signalled()).length === 2, { what: 'the second request to arrive' });
              release.open();
              await waitFor(() => done.length === 2, { what: 'the owed second reset' });
              expect(done).to.deep.equal([organizationId, organizationId]);
              await waitFor(async () => !(await status(organizationId)).resetting, { what: 'the second reset to end' });
            } finally {
              release.open();
              workflows.shutdown();
              activities.shutdown();
            }
          })(),
        ]),
    );
  });
});
