/**
 * Patching, shown once (docs/operators/internals.md "Changing the workflow"): `lifecycle-keep-unchanged-timer` changed which
 * commands a failed or partial payment makes during a plan. A history recorded before it still replays against the
 * patched code (the old branch), and a new run takes the new branch, whose timer still fires when it should.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { PATCH_IDS } from '../../core/temporal/names';
import { acceptUpdate } from '../../workflows/lifecycle/messages';
import { historyFromJson } from '../support/history-json';
import {
  PRE_PATCH_HISTORIES_DIR,
  lifecycleBundle,
  startScenario,
  withLifecycleWorker,
} from '../support/lifecycle-histories';
import { patchMarkersIn } from '../support/lifecycle-history-states';
import { startTimeSkipping } from '../support/temporal';

const DAY = 86_400_000;
const PATCH = PATCH_IDS.lifecycleKeepUnchangedTimer;

type History = ReturnType<typeof historyFromJson>;
const timersCancelledIn = (history: History) =>
  (history.events ?? []).filter((event) => event.timerCanceledEventAttributes).length;

describe(`the lifecycle workflow's patch ${PATCH}`, function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await startTimeSkipping();
  });
  after(async () => await env?.teardown());

  it('replays a history recorded before the patch, which restarted the timer on every payment', async () => {
    const history = historyFromJson(readFileSync(join(PRE_PATCH_HISTORIES_DIR, `${PATCH}.json`), 'utf8'));
    expect(patchMarkersIn(history)).to.deep.equal([]);
    expect(timersCancelledIn(history), 'timers cancelled and restarted').to.be.at.least(4);
    await Worker.runReplayHistory({ workflowBundle: await lifecycleBundle() }, history, `pre-${PATCH}`);
  });

  it('a new run records the patch, keeps its timer through a failed and a partial payment, and still defaults', async () => {
    const history = await withLifecycleWorker(env, async (taskQueue) => {
      const run = await startScenario(env, taskQueue);
      await run.handle.executeUpdate(acceptUpdate);
      await run.monthlyPlan(3);
      await run.pay('200', `declined-${run.debtId}`, false);
      await run.pay('50', `partial-${run.debtId}`);
      const [first] = await run.schedule();
      await run.skipTo(Date.parse(`${first!.dueDate}T00:00:00.000Z`) + DAY + 7 * DAY);
      await run.statusBecomes('InArrears');
      return run.handle.fetchHistory();
    });
    expect(patchMarkersIn(history)).to.include(PATCH);
    expect(timersCancelledIn(history), 'timers cancelled').to.equal(0);
    const fired = (history.events ?? []).filter((event) => event.timerFiredEventAttributes);
    expect(fired, 'the due date, then the end of the grace period').to.have.length(2);
  });
});

describe(`the lifecycle workflow's patch ${PATCH_IDS.lifecycleLoadLocal}`, function () {
  this.timeout(120_000);
  const LOAD_PATCH = PATCH_IDS.lifecycleLoadLocal;
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await startTimeSkipping();
  });
  after(async () => await env?.teardown());

  const activityTasksIn = (history: History) =>
    (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes).length;
  const workflowTasksIn = (events: History['events']) =>
    (events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes).length;

  it('replays a history recorded before the patch, whose first load was an activity task', async () => {
    const history = historyFromJson(readFileSync(join(PRE_PATCH_HISTORIES_DIR, `${LOAD_PATCH}.json`), 'utf8'));
    expect(patchMarkersIn(history)).to.not.include(LOAD_PATCH);
    expect(activityTasksIn(history)).to.be.at.least(1);
    await Worker.runReplayHistory({ workflowBundle: await lifecycleBundle() }, history, `pre-${LOAD_PATCH}`);
  });

  it('a new run records the patch and loads its debt inside its first workflow task, with no activity task', async () => {
    const history = await withLifecycleWorker(env, async (taskQueue) => {
      const run = await startScenario(env, taskQueue);
      await run.statusBecomes('PendingAssignment');
      return run.handle.fetchHistory();
    });
    expect(patchMarkersIn(history)).to.include(LOAD_PATCH);
    expect(activityTasksIn(history), 'activity tasks').to.equal(0);
    const loadMarker = (history.events ?? []).findIndex(
      (event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    const firstTaskDone = (history.events ?? []).findIndex((event) => event.workflowTaskCompletedEventAttributes);
    expect(loadMarker, 'the load recorded with the first workflow task’s commands').to.be.greaterThan(firstTaskDone);
    expect(workflowTasksIn(history.events?.slice(0, loadMarker)), 'workflow tasks before the load').to.equal(1);
  });
});
