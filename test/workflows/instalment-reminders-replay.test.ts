/**
 * Determinism in CI: the recorded histories of the instalment reminder workflow (recorded by
 * test/integration/debtor-notifications.test.ts with `RECORD_HISTORIES=1`: a plan whose first two instalments are
 * reminded and whose default leaves the third unreminded) replay against the current bundle. A change to the
 * workflow's commands (activities, timers, their order) that is not guarded by `patched` fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import { historyFromJson } from '../support/history-json';
import { bundleWorkflows } from '../support/temporal';
import { expectEveryHistoryReplays } from '../support/replay';

const DIR = join(__dirname, 'histories', 'instalment-reminders');

describe('instalmentRemindersWorkflow replays its recorded histories', function () {
  this.timeout(120_000);

  it('replays every recorded history without a nondeterminism error', async () => {
    const files = readdirSync(DIR).filter((name) => name.endsWith('.json'));
    expect(files).to.not.be.empty;
    const histories = files.map((file) => ({
      workflowId: basename(file, '.json'),
      history: historyFromJson(readFileSync(join(DIR, file), 'utf8')),
    }));
    const workflowBundle = await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle'));
    await expectEveryHistoryReplays(workflowBundle, histories);
  });
});
