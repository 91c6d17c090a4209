/** The replay tests' check: every recorded history replays on today's workflow code without a nondeterminism error. */
import { Worker } from '@temporalio/worker';
import { expect } from 'chai';

type History = Parameters<typeof Worker.runReplayHistory>[1];
type WorkflowBundle = NonNullable<Parameters<typeof Worker.runReplayHistories>[0]['workflowBundle']>;

/** Replays each history on the bundle and expects none to fail, and every one of them to have been replayed. */
export async function expectEveryHistoryReplays(
  workflowBundle: WorkflowBundle,
  histories: { workflowId: string; history: History }[],
): Promise<void> {
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).to.deep.equal([]);
  expect(replayed).to.equal(histories.length);
}
