/**
 * `placement-<id>` on the time-skipping server with its real activities against the test database: a file with bad
 * rows imports the good ones in chunks, paced (the pauses are skipped time), and ends `CompletedWithErrors` with the
 * bad rows listed and its `PlacementStatus` search attribute following; a cancel asked before the import stops it; a
 * placement deleted mid-import ends the run `Gone` at once; a run whose row never commits ends `Abandoned`. The
 * history holds ids only, never a debtor's data.
 * `RECORD_HISTORIES=1` also writes these runs' histories for placement-replay.test.ts (PLACEMENT_HISTORIES_DIR, the
 * histories of the current code; move the old ones to its `pre-patch/` first when a patched change is recorded).
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createPlacementActivities } from '../../activities/placements';
import { createDebtRowChecker } from '../../api/http/debt-row-check';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { newId } from '../../core/platform/ids';
import { createPlacementRuns } from '../../core/placements/placement-runs';
import { getPlacement, listRowErrors, requestCancel } from '../../core/placements/placements';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import type { placementWorkflow } from '../../workflows/placement';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { historyToJson } from '../support/history-json';
import { goodRows, PLACEMENT_HEADER, PLACEMENT_HISTORIES_DIR, storePlacement } from '../support/placements';
import { testDb } from '../support/resources';
import { startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

describe('placementWorkflow on the time-skipping server', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  let dir: string;
  let store: LocalDocumentStore;
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.lifecycle);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'placement-workflow-'));
    store = new LocalDocumentStore(dir);
    env = await startTimeSkipping();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await lifecycleBundle(),
      // Small chunks at a slow pace: several chunks, each followed by a pause the server skips.
      activities: createPlacementActivities({
        db: testDb(),
        store,
        checkRow: createDebtRowChecker(),
        chunkRows: 2,
        defaultRowsPerSecond: 1,
      }),
    });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await rm(dir, { recursive: true, force: true });
  });

  async function record(name: string, handle: WorkflowHandle) {
    if (process.env.RECORD_HISTORIES !== '1') return;
    mkdirSync(PLACEMENT_HISTORIES_DIR, { recursive: true });
    writeFileSync(
      path.join(PLACEMENT_HISTORIES_DIR, `${name}.json`),
      historyToJson(await handle.fetchHistory()) + '\n',
    );
  }

  async function run(organizationId: string, placementId: string) {
    await createPlacementRuns({ client: env.client, taskQueue }).start(organizationId, placementId);
    return env.client.workflow.getHandle<typeof placementWorkflow>(workflowIds.placement(placementId));
  }

  it('imports the good rows in paced chunks, lists the bad ones and ends CompletedWithErrors', async () => {
    const { organization } = await createTestTenant();
    const rows = goodRows('W', 5);
    rows.splice(2, 0, 'W-bad,0,AUD,W-D-bad,Ann,Lee,bad@example.com');
    const ref = await storePlacement(store, organization.id, [PLACEMENT_HEADER, ...rows].join('\n'));
    const handle = await run(ref.organizationId, ref.placementId);
    expect(await handle.result()).to.equal('CompletedWithErrors');
    expect(await getPlacement(testDb(), ref.organizationId, ref.placementId)).to.include({
      status: 'CompletedWithErrors',
      rows: 6,
      imported: 5,
      failed: 1,
    });
    const errors = await listRowErrors(testDb(), ref.organizationId, ref.placementId, { limit: 10 });
    expect(errors!.data.map((e) => [e.row, e.code])).to.deep.equal([[4, 'invalid_principal']]);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.placementStatus)).to.equal(
      'CompletedWithErrors',
    );
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history).to.not.include('example.com');
    expect(history).to.not.include('Ann');
    // Chunks of two rows: three of them (and the pauses between them, skipped).
    expect(history.match(/"importPlacementChunk"/g)).to.have.length.of.at.least(3);
    await record('completed-with-errors', handle);
  });

  it('stops before importing when a cancel was asked', async () => {
    const { organization } = await createTestTenant();
    const ref = await storePlacement(store, organization.id, [PLACEMENT_HEADER, ...goodRows('K', 4)].join('\n'));
    await requestCancel(testDb(), ref.organizationId, ref.placementId);
    const handle = await run(ref.organizationId, ref.placementId);
    expect(await handle.result()).to.equal('Cancelled');
    expect(await getPlacement(testDb(), ref.organizationId, ref.placementId)).to.include({
      status: 'Cancelled',
      imported: 0,
    });
    await record('cancelled-before-import', handle);
  });

  it('ends Gone, without retrying, when its placement is deleted mid-import (a sandbox reset)', async () => {
    const { organization } = await createTestTenant();
    const ref = await storePlacement(store, organization.id, [PLACEMENT_HEADER, ...goodRows('G', 40)].join('\n'));
    const handle = await run(ref.organizationId, ref.placementId);
    await waitFor(
      async () => ((await getPlacement(testDb(), ref.organizationId, ref.placementId))?.imported ?? 0) >= 2,
      {
        what: 'the placement to be importing',
      },
    );
    await testDb()('placement_row_problems').where({ placement_id: ref.placementId }).delete();
    await testDb()('placements').where({ id: ref.placementId }).delete();
    expect(await handle.result()).to.equal('Gone');
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.placementStatus)).to.equal('Cancelled');
    const failures = (await handle.fetchHistory()).events?.filter((e) => e.activityTaskFailedEventAttributes) ?? [];
    expect(failures).to.have.length(1);
    await record('gone-mid-import', handle);
  });

  it('ends Abandoned when the placement’s row never commits', async () => {
    const { organization } = await createTestTenant();
    const handle = await run(organization.id, newId());
    expect(await handle.result()).to.equal('Abandoned');
    await record('abandoned-row-never-committed', handle);
  });
});
