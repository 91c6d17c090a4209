/**
 * The sandbox reset for real: PostgreSQL, the Temporal dev server, the real lifecycle worker and the real sandbox
 * reset workflow and activities. Sign-up starts the tenant's reset workflow and its seed's debt workflows; a reset
 * wipes what DECISIONS.md §6 wipes, keeps what it keeps, ends the old debt workflows and starts the new seed's; the
 * old key still works and sees the fresh seed only; an interrupted reset completes on retry without duplicates; API
 * use reaches the workflow, debounced, and starts it for a tenant created without sign-up. A placement importing
 * when the reset comes is wiped with its rows' problems and its stored file, and its workflow ends `Gone` at once,
 * without retrying its steps.
 */
import { expect } from 'chai';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { createPlacementActivities } from '../../activities/placements';
import { createSandboxResetActivities, type SandboxResetActivities } from '../../activities/sandbox-reset';
import { createDebtRowChecker } from '../../api/http/debt-row-check';
import { ObjectMissingError } from '../../core/documents/store';
import { createPlacementRuns } from '../../core/placements/placement-runs';
import { getPlacementRow } from '../../core/placements/placements';
import { createDebtTriggers } from '../../core/lifecycle/triggers';
import { endWipedDebtWorkflows, runningDebtWorkflowsQuery } from '../../core/sandbox/debt-workflows';
import { resetSandboxTenant } from '../../core/sandbox/reset-tenant';
import { createSandboxResets } from '../../core/sandbox/resets';
import { WIPE_BATCH, wipeTenantDataInBatches } from '../../core/sandbox/wipe';
import { NAMESPACES, SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import { stateQuery as debtStateQuery } from '../../workflows/lifecycle/messages';
import type { placementWorkflow } from '../../workflows/placement';
import { sandboxResetWorkflow, statusQuery } from '../../workflows/sandbox-reset';
import { startTestServer, testDocumentStore, type TestServer } from '../support/app';
import { raiseDebt, type Caller } from '../support/debt-api';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { testLifecycle, type LifecycleStack } from '../support/lifecycle-stack';
import { goodRows, PLACEMENT_HEADER, storePlacement } from '../support/placements';
import { testDb } from '../support/resources';
import { signUp } from '../support/sandbox';
import { bundleWorkflows, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { createGate, waitFor } from '../support/wait';
import { configureReceiver, localWebhookConfig, raiseEvent } from '../support/webhooks';

type Page = { data: Record<string, unknown>[] };

describe('Sandbox reset against PostgreSQL and Temporal', function () {
  this.timeout(120_000);
  let stack: LifecycleStack;
  let client: Client;
  let server: TestServer;
  const queue = uniqueTaskQueue(TASK_QUEUES.sandbox);
  const workers: { worker: Worker; running: Promise<void> }[] = [];

  function realActivities(): SandboxResetActivities {
    return createSandboxResetActivities({
      db: testDb(),
      client,
      lifecycleTaskQueue: stack.taskQueue,
      documents: testDocumentStore('sandbox'), // the store the test server's sign-up and downloads use
    });
  }

  /** A sandbox worker on `taskQueue`: workflows, activities, or both. */
  async function startWorker(options: { taskQueue: string; workflows?: boolean; activities?: object }) {
    const worker = await Worker.create({
      connection: stack.env.nativeConnection,
      namespace: NAMESPACES.sandbox,
      taskQueue: options.taskQueue,
      ...(options.workflows
        ? { workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/sandbox')) }
        : {}),
      activities: options.activities,
      shutdownGraceTime: '100ms',
    });
    const entry = { worker, running: worker.run() };
    workers.push(entry);
    return entry;
  }

  before(async () => {
    stack = await testLifecycle();
    client = stack.client('sandbox');
    await startWorker({ taskQueue: queue, workflows: true, activities: realActivities() });
    server = await startTestServer({
      mode: 'sandbox',
      env: { SANDBOX_SIGNUPS_PER_HOUR: '1000000' },
      deps: { sandboxResets: createSandboxResets({ client, taskQueue: queue }) },
    });
  });
  after(async () => {
    await server?.close();
    for (const { worker } of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.running));
  });

  const resetHandle = (organizationId: string) =>
    client.workflow.getHandle<typeof sandboxResetWorkflow>(workflowIds.sandboxReset(organizationId));

  async function runningDebtWorkflows(organizationId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query: runningDebtWorkflowsQuery(organizationId) })) {
      ids.push(execution.workflowId);
    }
    return ids.sort();
  }

  async function openDebtWorkflowIds(api: Caller): Promise<string[]> {
    const debts = (await api<Page>('GET', '/v1/debts?limit=200')).body.data;
    const open = debts.filter((d) => !['Settled', 'WrittenOff', 'Closed'].includes(d.status as string));
    return open.map((d) => workflowIds.debt(d.id as string)).sort();
  }

  /** Waits until exactly the tenant's open debts have running workflows (visibility is eventually consistent). */
  async function waitForDebtWorkflows(organizationId: string, api: Caller): Promise<string[]> {
    const expected = await openDebtWorkflowIds(api);
    await waitFor(async () => JSON.stringify(await runningDebtWorkflows(organizationId)) === JSON.stringify(expected), {
      what: 'the open debts’ workflows, and only those, to be running',
    });
    return expected;
  }

  async function waitForReset(organizationId: string, after: string | null = null): Promise<void> {
    await waitFor(
      async () => {
        const status = await resetHandle(organizationId).query(statusQuery);
        return status.lastResetAt !== null && status.lastResetAt !== after && !status.resetting;
      },
      { what: 'the tenant to be reset' },
    );
  }

  it('sign-up starts the tenant’s reset workflow (by OrganizationId) and its open seeded debts’ workflows', async () => {
    const tenant = await signUp(server.baseUrl);
    const description = await resetHandle(tenant.organizationId).describe();
    expect(description.status.name).to.equal('RUNNING');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.organizationId)).to.equal(tenant.organizationId);
    expect(description.priority?.fairnessKey, 'fairness key').to.equal(tenant.organizationId);
    const status = await resetHandle(tenant.organizationId).query(statusQuery);
    expect(status.resetAt).to.equal(new Date(Date.parse(status.lastUsedAt) + 7 * 86_400_000).toISOString());
    const running = await waitForDebtWorkflows(tenant.organizationId, tenant.api);
    expect(running).to.have.length(5);
  });

  it('POST /v1/sandbox/reset wipes the data, keeps organisation, branding, keys and webhooks, and reseeds', async () => {
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    const oldWorkflows = await waitForDebtWorkflows(org, tenant.api);
    const oldDebtIds = (await tenant.api<Page>('GET', '/v1/debts?limit=200')).body.data.map((d) => d.id);
    // The tenant's own activity: a debt of its own (with its workflow), an event and its delivery, an idempotency
    // record, branding and a webhook receiver.
    const own = await raiseDebt(tenant.api);
    await createDebtTriggers({ db: testDb(), client, mode: 'sandbox', taskQueue: stack.taskQueue }).accept(org, own.id);
    await configureReceiver(localWebhookConfig(), org, 'http://127.0.0.1:9/hooks');
    await raiseEvent(org);
    const branded = await tenant.api(
      'PATCH',
      '/v1/organization/branding',
      { primaryColor: '#112233' },
      {
        'idempotency-key': 'brand-1',
      },
    );
    expect(branded.status, branded.text).to.equal(200);
    const counts = async (table: 'events' | 'webhook_deliveries' | 'idempotency_keys' | 'lifecycle_inputs') =>
      Number((await testDb()(table).where({ organization_id: org }).count({ n: '*' }))[0]!.n);
    expect(await counts('webhook_deliveries')).to.be.greaterThan(0);

    const accepted = await tenant.api('POST', '/v1/sandbox/reset');
    expect(accepted.status, accepted.text).to.equal(202);
    expect(accepted.body).to.include({ status: 'Requested' }); // where it stands; no workflow id
    expect(accepted.body).to.not.have.property('workflowId');
    await waitForReset(org);
    const after = await tenant.api('GET', '/v1/sandbox/reset');
    expect(after.body).to.include({ status: 'Scheduled' });
    expect(Date.parse(after.body.lastResetAt as string)).to.be.at.least(
      Date.parse(accepted.headers.get('date')!) - 1_000,
    );

    // The old key still works and sees the fresh seed only.
    expect((await tenant.api('GET', '/v1/organization')).status).to.equal(200);
    const debts = (await tenant.api<Page>('GET', '/v1/debts?limit=200')).body.data;
    expect(debts.map((d) => d.externalAccountId).sort()).to.deep.equal(
      ['0001', '0002', '0003', '0004', '0005', '0006', '0007', '0008'].map((n) => `ACCT-${n}`),
    );
    expect(debts.map((d) => d.id)).to.not.include.members([...oldDebtIds, own.id]);
    expect((await tenant.api<Page>('GET', '/v1/debtors?limit=200')).body.data).to.have.length(5);
    expect((await tenant.api<Page>('GET', '/v1/events')).body.data).to.deep.equal([]);
    // The new seed's sample agreement, once (the old rows went with their debts), and its bytes are served.
    const active = String(debts.find((d) => d.externalAccountId === 'ACCT-0002')!.id);
    const documents = (await tenant.api<Page>('GET', `/v1/debts/${active}/documents`)).body.data;
    expect(documents.map((d) => d.kind)).to.deep.equal(['Agreement']);
    const content = await fetch(`${server.baseUrl}/v1/debts/${active}/documents/${String(documents[0]!.id)}/content`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(content.status).to.equal(200);
    expect(
      Buffer.from(await content.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).to.equal('%PDF-');
    for (const table of ['events', 'webhook_deliveries', 'idempotency_keys', 'lifecycle_inputs'] as const) {
      expect(await counts(table), table).to.equal(0);
    }
    // Kept: branding, the webhook receiver, the key.
    const branding = await tenant.api('GET', '/v1/organization/branding');
    expect(branding.body.primaryColor).to.equal('#112233');
    const webhook = await tenant.api('GET', '/v1/webhooks');
    expect(webhook.body.url).to.equal('http://127.0.0.1:9/hooks');

    // The old debts' workflows ended; the new seed's open debts have theirs.
    const running = await waitForDebtWorkflows(org, tenant.api);
    expect(running).to.have.length(5);
    for (const id of [...oldWorkflows, workflowIds.debt(own.id)]) {
      expect((await client.workflow.getHandle(id).describe()).status.name, id).to.equal('TERMINATED');
    }
  });

  it('an interrupted reset (its worker shut down after the wipe and reseed) completes on retry without wiping again', async () => {
    const interruptedQueue = uniqueTaskQueue(TASK_QUEUES.sandbox);
    await startWorker({ taskQueue: interruptedQueue, workflows: true });
    const real = realActivities();
    const entered = createGate();
    const doomed = await startWorker({
      taskQueue: interruptedQueue,
      activities: {
        startTenantDebtWorkflows: real.startTenantDebtWorkflows,
        resetSandboxTenant: async (organizationId: string) => {
          await real.resetSandboxTenant(organizationId); // committed, the new seed's workflows started…
          entered.open();
          await Context.current().cancelled.catch(() => undefined); // …and the worker dies before reporting
          throw new Error('the worker shut down mid-reset');
        },
      },
    });
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    await waitForDebtWorkflows(org, tenant.api);
    // This tenant's workflow runs on the interrupted queue.
    await resetHandle(org).terminate('moved to the interrupted queue for this test');
    const resets = createSandboxResets({ client, taskQueue: interruptedQueue });
    await resets.resetNow(org);
    await entered.opened;
    const halfway = await openDebtWorkflowIds(tenant.api);
    doomed.worker.shutdown();
    await doomed.running;

    await startWorker({ taskQueue: interruptedQueue, activities: realActivities() });
    await waitForReset(org);
    const debts = (await tenant.api<Page>('GET', '/v1/debts?limit=200')).body.data;
    expect(debts).to.have.length(8);
    expect(new Set(debts.map((d) => d.externalAccountId)).size).to.equal(8);
    expect((await tenant.api<Page>('GET', '/v1/debtors?limit=200')).body.data).to.have.length(5);
    const running = await waitForDebtWorkflows(org, tenant.api);
    expect(running).to.have.length(5);
    // The retry found its wipe committed (the run id recorded with it) and kept the seed the tenant may be using.
    expect(running).to.deep.equal(halfway);
  });

  it('ends only the workflows whose debt row is gone: a debt raised after the wipe keeps its life', async () => {
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    const seeded = await waitForDebtWorkflows(org, tenant.api);
    // As after a wipe whose seed is already in place: the old rows are gone, and the tenant has raised a debt
    // since, whose workflow runs (started by its first trigger). It was in no seed: before, the reset ended it.
    const wiped = seeded.slice(0, 2);
    const wipedIds = wiped.map((id) => id.replace(/^debt-/, ''));
    // Each has loaded its row (a workflow whose row is gone before its first load fails on its own).
    for (const id of wiped) {
      await waitFor(
        () =>
          client.workflow
            .getHandle(id)
            .query(debtStateQuery)
            .catch(() => undefined),
        {
          what: `${id} to load its state`,
        },
      );
    }
    await testDb()('lifecycle_inputs').whereIn('debt_id', wipedIds).delete();
    await testDb()('transactions').whereIn('debt_id', wipedIds).delete();
    await testDb()('documents').whereIn('debt_id', wipedIds).delete();
    await testDb()('debts').whereIn('id', wipedIds).delete();
    const raised = await raiseDebt(tenant.api);
    const triggers = createDebtTriggers({ db: testDb(), client, mode: 'sandbox', taskQueue: stack.taskQueue });
    await triggers.accept(org, raised.id);
    await waitFor(async () => (await runningDebtWorkflows(org)).includes(workflowIds.debt(raised.id)), {
      what: 'the new debt’s workflow to be listed',
    });

    const beats: number[] = [];
    const ended = await endWipedDebtWorkflows({ db: testDb(), client }, org, { heartbeat: () => beats.push(1) });
    expect(ended).to.equal(2);
    expect(beats.length).to.be.at.least(1);
    const running = await waitForDebtWorkflows(org, tenant.api);
    expect(running).to.include(workflowIds.debt(raised.id));
    expect(running).to.not.include.members(wiped);
    expect(running).to.include.members(seeded.slice(2));
  });

  it('wipes a placement importing meanwhile, its problems and its file; its workflow ends Gone without retrying', async () => {
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    const store = testDocumentStore('sandbox');
    // A slow import (a row a chunk, two rows a second), so the reset comes while it runs.
    const placementQueue = uniqueTaskQueue(TASK_QUEUES.placements);
    const placementWorker = await Worker.create({
      connection: stack.env.nativeConnection,
      namespace: NAMESPACES.sandbox,
      taskQueue: placementQueue,
      workflowBundle: await lifecycleBundle(),
      activities: createPlacementActivities({
        db: testDb(),
        store,
        checkRow: createDebtRowChecker(),
        chunkRows: 1,
        defaultRowsPerSecond: 2,
      }),
      shutdownGraceTime: '100ms',
    });
    workers.push({ worker: placementWorker, running: placementWorker.run() });
    const rows = goodRows('R', 40);
    rows.splice(1, 0, 'R-bad,0,AUD,R-D-bad,Ann,Lee,bad@example.com'); // a problem row, recorded by the validation
    const ref = await storePlacement(store, org, [PLACEMENT_HEADER, ...rows].join('\n'));
    const key = (await getPlacementRow(testDb(), org, ref.placementId))!.storage_key;
    await createPlacementRuns({ client, taskQueue: placementQueue }).start(org, ref.placementId);
    await waitFor(async () => ((await getPlacementRow(testDb(), org, ref.placementId))?.imported ?? 0) >= 2, {
      what: 'the placement to be importing',
    });
    expect(await testDb()('placement_row_problems').where({ placement_id: ref.placementId }).count({ n: '*' }))
      .to.have.nested.property('[0].n')
      .that.satisfies((n: string) => Number(n) > 0);

    expect((await tenant.api('POST', '/v1/sandbox/reset')).status).to.equal(202);
    await waitForReset(org);

    const handle = client.workflow.getHandle<typeof placementWorkflow>(workflowIds.placement(ref.placementId));
    expect(await handle.result()).to.equal('Gone');
    expect((await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.placementStatus)).to.equal(
      'Cancelled',
    );
    // Nothing is left of it: no row, no problems, no file.
    expect(await testDb()('placements').where({ organization_id: org })).to.deep.equal([]);
    expect(await testDb()('placement_row_problems').where({ organization_id: org })).to.deep.equal([]);
    let missing: unknown;
    await store.get(key).catch((err: unknown) => (missing = err));
    expect(missing).to.be.instanceOf(ObjectMissingError);
    // The step that found it gone failed once, not retried: no attempt of any activity past its first failed.
    const history = await handle.fetchHistory();
    const failed = (history.events ?? []).filter((e) => e.activityTaskFailedEventAttributes);
    expect(failed).to.have.length(1);
    expect(failed[0]!.activityTaskFailedEventAttributes!.failure!.applicationFailureInfo).to.include({
      type: 'PlacementGone',
      nonRetryable: true,
    });
  });

  it('wipes a large tenant in batches, each its own statement, with a heartbeat after each', async () => {
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    await testDb().raw(
      `insert into events (id, organization_id, type, data)
       select 'evt_' || lpad(to_hex(g), 32, '0'), ?, 'test.ping', '{}' from generate_series(1, ?) g`,
      [org, 2 * WIPE_BATCH + 10],
    );
    let beats = 0;
    const removed = await wipeTenantDataInBatches(testDb(), org, () => beats++);
    expect(removed.events).to.be.at.least(2 * WIPE_BATCH + 10);
    expect(beats, 'one per batch: three of events, one of each other table').to.be.at.least(3);
    expect(
      await testDb()('events')
        .where({ organization_id: org })
        .count({ n: '*' })
        .then(([row]) => Number(row?.n)),
    ).to.equal(0);
    expect(
      await testDb()('debts')
        .where({ organization_id: org })
        .count({ n: '*' })
        .then(([row]) => Number(row?.n)),
    ).to.equal(0);
  });

  it('a reset attempted again under the same id does not wipe again', async () => {
    const tenant = await signUp(server.baseUrl);
    const org = tenant.organizationId;
    const deps = { db: testDb(), client, lifecycleTaskQueue: stack.taskQueue };
    const first = await resetSandboxTenant(deps, org, new Date(), { resetId: 'run-1' });
    const mine = await raiseDebt(tenant.api); // the tenant starts using the new seed
    const again = await resetSandboxTenant(deps, org, new Date(), { resetId: 'run-1' });
    expect(again.outcome === 'reset' && Object.values(again.removed).every((n) => n === 0)).to.equal(true);
    const ids = (await tenant.api<Page>('GET', '/v1/debts?limit=200')).body.data.map((d) => d.id);
    expect(ids).to.include(mine.id);
    expect(ids).to.include.members(first.outcome === 'reset' ? first.seededDebtIds : ['a reset']);
    const next = await resetSandboxTenant(deps, org, new Date(), { resetId: 'run-2' }); // another reset wipes
    expect(next.outcome === 'reset' && next.removed.debts).to.equal(9);
  });

  it('API use signals the workflow at most once a minute, and starts it for a tenant created without sign-up', async () => {
    const tenant = await createTestTenant({ mode: 'sandbox' });
    const org = tenant.organization.id;
    const api = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: tenant.headers });
    expect((await api('/v1/debts')).status).to.equal(200);
    const status = await waitFor(
      async () =>
        resetHandle(org)
          .query(statusQuery)
          .catch(() => undefined),
      { what: 'the first use to start the reset workflow' },
    );
    expect(status.resetAt).to.not.equal(null);
    expect((await api('/v1/debtors')).status).to.equal(200);
    expect((await api('/v1/organization')).status).to.equal(200);
    const history = await resetHandle(org).fetchHistory();
    const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals).to.have.length(1);
  });
});
