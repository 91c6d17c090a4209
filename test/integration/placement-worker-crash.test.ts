/**
 * A placements worker process killed (SIGKILL) in the middle of a placement's import, against the real worker, a
 * Temporal dev server and the test database. Killed while a chunk's transaction is open, after one chunk committed: the
 * half-done chunk is rolled back with its connection, the import resumes at the last committed chunk on a second worker and
 * every row is imported exactly once (one debt and one `debt.created` per account, none twice).
 */
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPlacementRuns } from '../../core/placements/placement-runs';
import { getPlacementRow } from '../../core/placements/placements';
import { TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import type { placementWorkflow } from '../../workflows/placement';
import { TEST_DOCUMENT_DIR, testDocumentStore } from '../support/app';
import { testEnv } from '../support/env';
import { goodRows, PLACEMENT_HEADER, storePlacement } from '../support/placements';
import { killGroup } from '../support/processes';
import { testDb } from '../support/resources';
import { startPlacementsWorker, type ServiceProcess } from '../support/service-processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const NAMESPACE = DEV_SERVER_NAMESPACES[0];
const ROWS = 1200;

describe('a placement whose placements worker is SIGKILLed mid-import', function () {
  this.timeout(300_000);
  let temporal: TestWorkflowEnvironment;
  const procs: ServiceProcess[] = [];

  before(async () => {
    temporal = await startDevServer();
  });
  after(async () => {
    procs.forEach(killGroup);
    await Promise.all(procs.map((p) => p.exited));
    await temporal?.teardown();
  });

  async function startWorker(): Promise<ServiceProcess> {
    const proc = await startPlacementsWorker({
      WORKER_MODES: 'production',
      PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      PRODUCTION_TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_ADDRESS: temporal.address,
      DOCUMENT_DIR: TEST_DOCUMENT_DIR,
    });
    procs.push(proc);
    return proc;
  }

  it('resumes at the last committed chunk on another worker and imports every row once', async () => {
    const { organization } = await createTestTenant();
    // No pause between chunks: the worker is importing the next chunk whenever one has just committed.
    await testDb().raw('update organizations set placement_rows_per_second = 1000000 where id = ?', [organization.id]);
    const text = [PLACEMENT_HEADER, ...goodRows('Z', ROWS)].join('\n');
    const ref = await storePlacement(testDocumentStore('production'), organization.id, text);
    const first = await startWorker();
    const client = new Client({ connection: temporal.connection, namespace: NAMESPACE });
    await createPlacementRuns({ client }).start(ref.organizationId, ref.placementId);

    const row = () => getPlacementRow(testDb(), ref.organizationId, ref.placementId);
    // A chunk's transaction open on the worker's connection, its rows being raised (written, not committed), after
    // one committed.
    const chunkInFlight = async () => {
      const { rows } = await testDb().raw<{ rows: { n: string }[] }>(
        `select count(*) as n from pg_stat_activity where datname = current_database() and xact_start is not null
           and backend_xid is not null and pid <> pg_backend_pid() and query ilike '%insert into debts%'`,
      );
      return Number(rows[0]!.n) > 0;
    };
    await waitFor(async () => ((await row())?.next_row ?? 1) > 1 && (await chunkInFlight()), {
      what: 'a chunk in flight after the first committed',
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    killGroup(first);
    await first.exited;
    const killed = (await row())!;
    expect(killed.status).to.equal('Importing');
    expect(killed.imported).to.be.below(ROWS);

    await startWorker();
    const handle = client.workflow.getHandle<typeof placementWorkflow>(workflowIds.placement(ref.placementId));
    expect(await handle.result()).to.equal('Completed');
    // On the placements queue, served by the placements worker process alone.
    expect((await handle.describe()).taskQueue).to.equal(TASK_QUEUES.placements);
    expect(await row()).to.include({ status: 'Completed', rows: ROWS, imported: ROWS, skipped: 0, failed: 0 });
    const debts = await testDb()('debts').where({ organization_id: organization.id }).select('external_account_id');
    expect(debts).to.have.length(ROWS);
    expect(new Set(debts.map((d: { external_account_id: string }) => d.external_account_id)).size).to.equal(ROWS);
    const [events] = await testDb()('events')
      .where({ organization_id: organization.id, type: 'debt.created' })
      .count<{ n: string }[]>('* as n');
    expect(Number(events!.n)).to.equal(ROWS);
  });
});
