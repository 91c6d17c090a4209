import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import { historyFromJson } from '../support/history-json';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { PLACEMENT_HISTORIES_DIR } from '../support/placements';
import { expectEveryHistoryReplays } from '../support/replay';

/**
 * Determinism in CI: recorded histories of `placement-<id>` (one per way a run ends) must replay against the current
 * lifecycle bundle, and so must those recorded before the workflow's patches (`pre-patch/`). A change to the
 * workflow's commands without `patched` fails here. Re-record after a deliberate, patched change:
 * `RECORD_HISTORIES=1 npx mocha test/workflows/placement.test.ts`.
 */
describe('placementWorkflow replays its recorded histories', function () {
  this.timeout(180_000);
  const PRE_PATCH_DIR = join(PLACEMENT_HISTORIES_DIR, 'pre-patch');
  const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')) : []);

  it('has a history for every way a run ends, before the patches and after', () => {
    expect(filesIn(PLACEMENT_HISTORIES_DIR).map((name) => basename(name, '.json'))).to.include.members([
      'completed-with-errors',
      'cancelled-before-import',
      'abandoned-row-never-committed',
      'gone-mid-import',
    ]);
    expect(filesIn(PRE_PATCH_DIR).map((name) => basename(name, '.json'))).to.include.members([
      'completed-with-errors',
      'cancelled-before-import',
      'abandoned-row-never-committed',
    ]);
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const histories = [PLACEMENT_HISTORIES_DIR, PRE_PATCH_DIR].flatMap((dir) =>
      filesIn(dir).map((name) => ({
        workflowId: `${basename(dir)}/${basename(name, '.json')}`,
        history: historyFromJson(readFileSync(join(dir, name), 'utf8')),
      })),
    );
    await expectEveryHistoryReplays(await lifecycleBundle(), histories);
  });
});
