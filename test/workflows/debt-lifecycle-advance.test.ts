/**
 * The sandbox's `advance` as a clock for one debt, on the time-skipping server with the real
 * activities: `{}` fires the next timer; `{ until }` fires every timer scheduled up to that moment, in order, in one
 * update, and answers what it fired. The change is the patch `lifecycle-advance-until`: a history recorded before it
 * (a worker that ignored `until` and fired one timer per call) still replays, and a new run records the marker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { PATCH_IDS } from '../../core/temporal/names';
import { acceptUpdate, advanceUpdate, stateQuery } from '../../workflows/lifecycle/messages';
import { historyFromJson } from '../support/history-json';
import {
  PRE_PATCH_HISTORIES_DIR,
  lifecycleBundle,
  startScenario,
  withLifecycleWorker,
  type ScenarioRun,
} from '../support/lifecycle-histories';
import { patchMarkersIn } from '../support/lifecycle-history-states';
import { startTimeSkipping } from '../support/temporal';

const DAY = 86_400_000;
const PATCH = PATCH_IDS.lifecycleAdvanceUntil;
const iso = (ms: number) => new Date(ms).toISOString();
/** The end of a due date in UTC: when the instalment falls due. */
const endOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`) + DAY;

describe('debtLifecycleWorkflow: the sandbox’s advance, to the next timer or to a moment', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await startTimeSkipping();
  });
  after(async () => await env?.teardown());

  /** A sandbox debt with an accepted monthly plan of `count`, and its first instalment's due date. */
  async function planned(taskQueue: string, count = 2): Promise<{ run: ScenarioRun; firstDue: string }> {
    const run = await startScenario(env, taskQueue, { sandbox: true });
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(count);
    const [first] = await run.schedule();
    return { run, firstDue: first!.dueDate };
  }

  it('{ until } fires every timer due up to it, in order, and answers each with the state it left', async () => {
    await withLifecycleWorker(env, async (taskQueue) => {
      const { run, firstDue } = await planned(taskQueue, 3);
      const clockBefore = await env.currentTimeMs();
      const dueAt = endOf(firstDue);
      const graceEndsAt = dueAt + 7 * DAY;

      const nothingYet = await run.handle.executeUpdate(advanceUpdate, { args: [{ until: iso(dueAt - 1) }] });
      expect(nothingYet.fired).to.deep.equal([]);
      expect(nothingYet.nextTimer).to.deep.include({ purpose: 'instalmentDue', at: iso(dueAt) });

      const late = await run.handle.executeUpdate(advanceUpdate, { args: [{ until: iso(dueAt) }] });
      expect(late.fired).to.deep.equal([
        {
          purpose: 'instalmentDue',
          instalmentIndex: 0,
          dueDate: firstDue,
          at: iso(dueAt),
          status: 'Active',
          planStatus: 'Active',
        },
      ]);
      expect(late.nextTimer).to.deep.include({ purpose: 'gracePeriodEnds', at: iso(graceEndsAt) });

      const defaulted = await run.handle.executeUpdate(advanceUpdate, {
        args: [{ until: iso(graceEndsAt + 365 * DAY) }],
      });
      expect(defaulted.fired).to.deep.equal([
        {
          purpose: 'gracePeriodEnds',
          instalmentIndex: 0,
          dueDate: firstDue,
          at: iso(graceEndsAt),
          status: 'InArrears',
          planStatus: 'Defaulted',
        },
      ]);
      expect(defaulted.state.status).to.equal('InArrears');
      expect(defaulted.nextTimer).to.equal(null);
      // Nothing left to fire is an answer, not a refusal; the server's own clock never moved.
      const after = await run.handle.executeUpdate(advanceUpdate, { args: [{ until: iso(graceEndsAt + 400 * DAY) }] });
      expect(after.fired).to.deep.equal([]);
      expect(await env.currentTimeMs()).to.be.below(dueAt);
      expect(clockBefore).to.be.below(dueAt);
    });
  });

  it('one far { until } fires the due date and the end of the grace period in a single update', async () => {
    await withLifecycleWorker(env, async (taskQueue) => {
      const { run, firstDue } = await planned(taskQueue);
      const answer = await run.handle.executeUpdate(advanceUpdate, { args: [{ until: '2999-01-01T00:00:00.000Z' }] });
      expect(answer.fired.map((f) => [f.purpose, f.dueDate, f.status, f.planStatus])).to.deep.equal([
        ['instalmentDue', firstDue, 'Active', 'Active'],
        ['gracePeriodEnds', firstDue, 'InArrears', 'Defaulted'],
      ]);
      expect((await run.handle.query(stateQuery)).state.status).to.equal('InArrears');
      const history = await run.handle.fetchHistory();
      expect(patchMarkersIn(history)).to.include(PATCH);
      const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
      expect(updates, 'accept, plan and one advance').to.have.length(3);
    });
  });

  it('{} still fires the next timer only, and is refused when none runs; no marker is recorded', async () => {
    await withLifecycleWorker(env, async (taskQueue) => {
      const { run, firstDue } = await planned(taskQueue);
      const first = await run.handle.executeUpdate(advanceUpdate, { args: [{}] });
      expect(first.fired.map((f) => f.purpose)).to.deep.equal(['instalmentDue']);
      const second = await run.handle.executeUpdate(advanceUpdate, { args: [{}] });
      expect(second.fired).to.deep.equal([
        {
          purpose: 'gracePeriodEnds',
          instalmentIndex: 0,
          dueDate: firstDue,
          at: iso(endOf(firstDue) + 7 * DAY),
          status: 'InArrears',
          planStatus: 'Defaulted',
        },
      ]);
      const refused = await run.handle.executeUpdate(advanceUpdate, { args: [{}] }).then(
        () => undefined,
        (err: unknown) => err as { cause?: { type?: string } },
      );
      expect(refused?.cause?.type).to.equal('invalid_state');
      expect(patchMarkersIn(await run.handle.fetchHistory())).to.not.include(PATCH);
    });
  });

  it(`replays a history recorded before ${PATCH}, whose worker fired one timer per { until }`, async () => {
    const history = historyFromJson(readFileSync(join(PRE_PATCH_HISTORIES_DIR, `${PATCH}.json`), 'utf8'));
    expect(patchMarkersIn(history)).to.not.include(PATCH);
    const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted.length, 'accept, plan, two advances with until, write-off').to.equal(5);
    await Worker.runReplayHistory({ workflowBundle: await lifecycleBundle() }, history, `pre-${PATCH}`);
  });
});
