/**
 * `placement-<id>` on the time-skipping server with its real activities against the test database: a file with bad
 * rows imports the good ones in chunks, paced (the pauses are skipped time), and ends `CompletedWithErrors` with the
 * bad rows listed and its `PlacementStatus` search attribute following; a cancel asked before the import stops it; a
 * run whose row never commits ends `Abandoned`. The history holds ids only, never a debtor's data.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
import { goodRows, PLACEMENT_HEADER, storePlacement } from '../support/placements';
import { testDb } from '../support/resources';
import { startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';

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
  });

  it('ends Abandoned when the placement’s row never commits', async () => {
    const { organization } = await createTestTenant();
    const handle = await run(organization.id, newId());
    expect(await handle.result()).to.equal('Abandoned');
  });
});
