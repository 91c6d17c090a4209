import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyFromJson } from '../support/history-json';
import {
  LIFECYCLE_HISTORIES_DIR,
  LIFECYCLE_SCENARIOS,
  PRE_PATCH_HISTORIES_DIR,
  lifecycleBundle,
  recordLifecycleHistories,
} from '../support/lifecycle-histories';
import { statesReachedIn } from '../support/lifecycle-history-states';
import { startTimeSkipping } from '../support/temporal';
import { expectEveryHistoryReplays } from '../support/replay';

/**
 * Determinism in CI: recorded histories of the debt lifecycle workflow, which together reach every state of
 * DECISIONS.md §3 and every plan status, must replay against the current bundle; so must the histories recorded
 * before each patch. A change to the workflow's commands (activities, timers, search attribute upserts, their order)
 * that is not guarded by `patched` fails here.
 */
describe('debtLifecycleWorkflow replays its recorded histories', function () {
  this.timeout(240_000);

  if (process.env.RECORD_HISTORIES === '1') {
    let env: TestWorkflowEnvironment | undefined;
    before(async () => {
      env = await startTimeSkipping();
      await recordLifecycleHistories(env);
    });
    after(async () => await env?.teardown());
  }

  const filesIn = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => name.endsWith('.json'))
          .map((name) => join(dir, name))
      : [];
  const recorded = () => filesIn(LIFECYCLE_HISTORIES_DIR);
  const historyOf = (file: string) => historyFromJson(readFileSync(file, 'utf8'));

  it('has a history for every scenario', () => {
    expect(recorded().map((file) => basename(file, '.json'))).to.include.members(Object.keys(LIFECYCLE_SCENARIOS));
  });

  it('the histories together reach every debt status and every plan status', () => {
    const reached = new Set(recorded().flatMap((file) => [...statesReachedIn(historyOf(file))]));
    const every = [
      ...['PendingAssignment', 'Accepted', 'Active', 'InArrears', 'Disputed', 'Settled', 'WrittenOff', 'Closed'],
      ...['plan:Active', 'plan:Completed', 'plan:Defaulted', 'plan:Cancelled'],
    ];
    expect([...reached].sort()).to.include.members(every);
    for (const file of recorded()) {
      const scenario = basename(file, '.json') as keyof typeof LIFECYCLE_SCENARIOS;
      expect([...statesReachedIn(historyOf(file))], scenario).to.include.members([...LIFECYCLE_SCENARIOS[scenario]]);
    }
  });

  it('replays every recorded history, and every pre-patch one, without a nondeterminism error', async () => {
    const files = [...recorded(), ...filesIn(PRE_PATCH_HISTORIES_DIR)];
    const histories = files.map((file) => ({ workflowId: basename(file, '.json'), history: historyOf(file) }));
    await expectEveryHistoryReplays(await lifecycleBundle(), histories);
  });
});
