/**
 * The `debt-<id>` workflow on the time-skipping server, at the real durations, with its real activity against the
 * real test database: plans paid on time settle; a missed instalment defaults exactly 7 days after its due date and
 * not a second before; a payment inside the grace period prevents the default; a recall ends every timer.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createDebt } from '../../core/debts/debt-creation';
import { TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import { debtLifecycleWorkflow } from '../../workflows/debt-lifecycle';
import {
  acceptUpdate,
  agreePlanUpdate,
  closeUpdate,
  reportPaymentUpdate,
  stateQuery,
  type LifecycleView,
} from '../../workflows/lifecycle/messages';
import { planScheduleOf } from '../support/lifecycle';
import { testDb } from '../support/resources';
import { bundleWorkflows, startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

type LifecycleHandle = WorkflowHandle<typeof debtLifecycleWorkflow>;

const DAY = 86_400_000;
const SECOND = 1_000;

/** `YYYY-MM-DD` of an epoch time, UTC. */
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The end of a due date in UTC: when the instalment falls due. */
const endOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`) + DAY;

describe('debtLifecycleWorkflow on the time-skipping server (real durations)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.lifecycle);

  before(async () => {
    env = await startTimeSkipping();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle')),
      activities: createDebtLifecycleActivities({ db: testDb() }),
    });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  /** A debt raised through core, its workflow started, and the debt accepted by the debtor. */
  async function acceptedDebt(principal: string): Promise<{ debtId: string; handle: LifecycleHandle }> {
    const tenant = await createTestTenant();
    const organizationId = tenant.organization.id;
    const debt = await testDb().transaction((trx) =>
      createDebt(trx, organizationId, {
        debtorReferenceId: `DBR-${Math.random().toString(36).slice(2, 10)}`,
        debtorFirstName: 'Ava',
        debtorLastName: 'Harris',
        debtorEmail: 'ava.harris@example.com',
        originalPrincipal: principal,
        externalAccountId: 'ACCT-LIFECYCLE',
      }),
    );
    const handle = await env.client.workflow.start(debtLifecycleWorkflow, {
      taskQueue,
      workflowId: workflowIds.debt(debt.id),
      args: [{ debtId: debt.id, organizationId, sandbox: false }],
    });
    await handle.executeUpdate(acceptUpdate);
    return { debtId: debt.id, handle };
  }

  async function agreeMonthlyPlan(handle: LifecycleHandle, instalmentCount: number): Promise<LifecycleView> {
    const firstDueDate = dateOf((await env.currentTimeMs()) + 10 * DAY);
    return handle.executeUpdate(agreePlanUpdate, { args: [{ instalmentCount, frequency: 'Monthly', firstDueDate }] });
  }

  /** Moves the test server's clock to `at` (epoch ms); it never moves back. */
  async function skipTo(at: number): Promise<void> {
    const now = await env.currentTimeMs();
    if (at > now) await env.sleep(at - now);
  }

  const statusOf = async (handle: LifecycleHandle) => (await handle.query(stateQuery)).state.status;

  async function eventTypesOf(debtId: string): Promise<string[]> {
    const rows = await testDb()('events')
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debtId])
      .orderBy([{ column: 'txid' }, { column: 'seq' }])
      .select('type');
    return rows.map((r: { type: string }) => r.type);
  }

  it('a monthly six-instalment plan paid on time ends Settled, its plan Completed, with no default', async () => {
    const { debtId, handle } = await acceptedDebt('1000.00');
    await agreeMonthlyPlan(handle, 6);
    const plan = { instalments: await planScheduleOf(debtId) };
    expect(plan.instalments.map((i) => i.amount)).to.deep.equal([
      '166.66',
      '166.66',
      '166.66',
      '166.66',
      '166.66',
      '166.7',
    ]);
    for (const [index, instalment] of plan.instalments.entries()) {
      await skipTo(endOf(instalment.dueDate) - DAY); // on the due date
      await handle.executeUpdate(reportPaymentUpdate, {
        args: [{ amount: instalment.amount, processorReference: `pay-${debtId}-${index}`, succeeded: true }],
      });
    }
    const final = await handle.result();
    expect(final.state.status).to.equal('Settled');
    expect(final.state.plan?.status).to.equal('Completed');
    expect(final.nextTimer).to.equal(null);
    const types = await eventTypesOf(debtId);
    expect(types).to.not.include('plan.defaulted');
    expect(types.filter((t) => t === 'payment.received')).to.have.length(6);
  });

  it('a missed instalment defaults exactly 7 days after its due date, and not one second before', async () => {
    const { debtId, handle } = await acceptedDebt('600.00');
    await agreeMonthlyPlan(handle, 3);
    const plan = { instalments: await planScheduleOf(debtId) };
    const graceEnds = endOf(plan.instalments[0]!.dueDate) + 7 * DAY;

    await skipTo(graceEnds - SECOND);
    expect(await statusOf(handle)).to.equal('Active');
    expect((await handle.query(stateQuery)).nextTimer).to.deep.include({
      purpose: 'gracePeriodEnds',
      at: new Date(graceEnds).toISOString(),
      instalmentIndex: 0,
    });

    await skipTo(graceEnds);
    await waitFor(async () => (await statusOf(handle)) === 'InArrears', {
      timeoutMs: 20_000,
      what: 'the plan to default',
    });
    const view = await handle.query(stateQuery);
    expect(view.state.plan?.status).to.equal('Defaulted');
    expect(view.nextTimer).to.equal(null);
    expect((await eventTypesOf(debtId)).slice(-4)).to.deep.equal([
      'plan.activated',
      'debt.updated',
      'plan.defaulted',
      'debt.updated',
    ]);
    // In the workflow's own clock the grace timer fired at the end of the grace period, never before it (a timer
    // starts when its command is recorded, a few milliseconds after the workflow computed it).
    const history = await handle.fetchHistory();
    const fired = history.events!.filter((e) => e.timerFiredEventAttributes).map((e) => tsToMs(e.eventTime));
    expect(fired.at(-1)).to.be.within(graceEnds, graceEnds + SECOND - 1);
  });

  it('a default that fails (the row moved on behind the workflow) is retried from the reloaded row, never ending the run', async () => {
    const { debtId, handle } = await acceptedDebt('600.00');
    await agreeMonthlyPlan(handle, 3);
    const plan = { instalments: await planScheduleOf(debtId) };
    const graceEnds = endOf(plan.instalments[0]!.dueDate) + 7 * DAY;
    // Two versions ahead of what the workflow saw: its default is refused as a version mismatch, no retry mends.
    await testDb()('debts').where({ id: debtId }).increment('lifecycle_version', 2);

    await skipTo(graceEnds);
    const history = async () => (await handle.fetchHistory()).events ?? [];
    await waitFor(async () => (await history()).some((e) => e.markerRecordedEventAttributes), {
      what: 'the failed default to be recorded and its retry planned',
    });
    expect((await handle.describe()).status.name).to.equal('RUNNING');
    expect(await statusOf(handle)).to.equal('Active');

    await skipTo(graceEnds + 60 * SECOND); // the first retry, a minute later
    await waitFor(async () => (await statusOf(handle)) === 'InArrears', { what: 'the retried default to apply' });
    expect((await handle.describe()).status.name).to.equal('RUNNING');
    expect((await eventTypesOf(debtId)).filter((t) => t === 'plan.defaulted')).to.have.length(1);
    const failures = (await history()).filter((e) => e.activityTaskFailedEventAttributes);
    expect(failures, 'one failed attempt: the version mismatch, not retried').to.have.length(1);
  });

  it('a payment inside the grace period prevents the default; the next instalment gets the timer', async () => {
    const { debtId, handle } = await acceptedDebt('600.00');
    await agreeMonthlyPlan(handle, 3);
    const plan = { instalments: await planScheduleOf(debtId) };
    const firstDue = endOf(plan.instalments[0]!.dueDate);
    await skipTo(firstDue + 3 * DAY);
    await handle.executeUpdate(reportPaymentUpdate, {
      args: [{ amount: '200', processorReference: `late-${debtId}`, succeeded: true }],
    });
    await skipTo(firstDue + 8 * DAY);
    const view = await handle.query(stateQuery);
    expect(view.state.status).to.equal('Active');
    expect(view.nextTimer).to.deep.include({ purpose: 'instalmentDue', instalmentIndex: 1 });
    expect(await eventTypesOf(debtId)).to.not.include('plan.defaulted');
  });

  it('a recall mid-plan closes the debt, cancels the plan and ends every timer', async () => {
    const { debtId, handle } = await acceptedDebt('900.00');
    await agreeMonthlyPlan(handle, 3);
    const plan = { instalments: await planScheduleOf(debtId) };
    await skipTo(endOf(plan.instalments[0]!.dueDate) - DAY);
    const closed = await handle.executeUpdate(closeUpdate, { args: [{}] });
    expect(closed.state.status).to.equal('Closed');
    expect(closed.state.plan?.status).to.equal('Cancelled');
    expect(closed.nextTimer).to.equal(null);
    expect((await handle.result()).state.status).to.equal('Closed');
    const description = await handle.describe();
    expect(description.status.name).to.equal('COMPLETED');
  });

  it('a ten-year weekly plan paid every week ends Settled, continuing as new so no history grows past its bound', async function () {
    this.timeout(300_000);
    const { debtId, handle } = await acceptedDebt('5200.00');
    const firstRunId = (await handle.describe()).runId;
    const firstDueDate = dateOf((await env.currentTimeMs()) + 7 * DAY);
    await handle.executeUpdate(agreePlanUpdate, {
      args: [{ instalmentCount: 520, frequency: 'Weekly', firstDueDate }],
    });
    const schedule = await planScheduleOf(debtId);
    expect(schedule).to.have.length(520);
    for (const [index, instalment] of schedule.entries()) {
      await skipTo(endOf(instalment.dueDate) - DAY);
      await handle.executeUpdate(reportPaymentUpdate, {
        args: [{ amount: instalment.amount, processorReference: `weekly-${debtId}-${index}`, succeeded: true }],
      });
    }
    expect((await handle.result()).state.status).to.equal('Settled');
    const first = await env.client.workflow.getHandle(workflowIds.debt(debtId), firstRunId).fetchHistory();
    expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes, 'the first run continued as new').to
      .exist;
    expect(first.events!.length).to.be.below(2_200);
    expect(Buffer.byteLength(JSON.stringify(first)), 'bytes of the first run').to.be.below(2_000_000);
    expect((await handle.describe()).runId).to.not.equal(firstRunId);
  });
});
