import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import { historyFromJson } from '../support/history-json';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { expectEveryHistoryReplays } from '../support/replay';

/**
 * Determinism in CI: recorded histories of `test-payment-<attemptId>` (one per way a run ends) must replay against the
 * current lifecycle bundle. A change to the workflow's commands (the timer, the activity, their order) without
 * `patched` fails here. Re-record after a deliberate, patched change:
 * `RECORD_HISTORIES=1 npx mocha test/workflows/test-payment-failure.test.ts`.
 */
describe('testPaymentFailureWorkflow replays its recorded histories', function () {
  this.timeout(180_000);
  const dir = join(__dirname, 'histories', 'test-payment');
  const files = () => readdirSync(dir).filter((name) => name.endsWith('.json'));

  it('has a history for every way a run ends', () => {
    expect(files().map((name) => basename(name, '.json'))).to.include.members([
      'failed-after-delay',
      'refused-debt-closed',
      'attempt-gone',
    ]);
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const histories = files().map((name) => ({
      workflowId: basename(name, '.json'),
      history: historyFromJson(readFileSync(join(dir, name), 'utf8')),
    }));
    await expectEveryHistoryReplays(await lifecycleBundle(), histories);
  });
});
