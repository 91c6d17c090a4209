/**
 * Records histories of the debt lifecycle workflow from real runs on the time-skipping server (the real activities
 * against the test database, at the real durations), as JSON under test/workflows/histories/lifecycle/: together they
 * reach every state of DECISIONS.md §3 and every plan status. test/workflows/debt-lifecycle-replay.test.ts replays
 * them against the current bundle, so a change that breaks determinism fails the build.
 * Re-record after a deliberate, patched change (docs/operators/internals.md "Changing the workflow"):
 * `RECORD_HISTORIES=1 npx mocha test/workflows/debt-lifecycle-replay.test.ts`. Histories under `pre-patch/` are
 * never re-recorded: each was recorded before a patch and proves the patched code still replays it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createDebt } from '../../core/debts/debt-creation';
import { recordLifecycleInput } from '../../core/lifecycle/inputs';
import type { LifecycleState } from '../../core/lifecycle/model';
import { workflowIds } from '../../core/temporal/names';
import { debtLifecycleWorkflow } from '../../workflows/debt-lifecycle';
import {
  acceptUpdate,
  advanceUpdate,
  agreePlanUpdate,
  closeUpdate,
  disputeUpdate,
  reportPaymentUpdate,
  resolveDisputeUpdate,
  stateQuery,
  writeOffUpdate,
} from '../../workflows/lifecycle/messages';
import { historyToJson } from './history-json';
import { inlineDebtBody } from './debt-api';
import { planScheduleOf } from './lifecycle';
import { testDb } from './resources';
import { bundleWorkflows, uniqueTaskQueue } from './temporal';
import { createTestTenant } from './tenants';
import { waitFor } from './wait';

export const LIFECYCLE_HISTORIES_DIR = join(__dirname, '..', 'workflows', 'histories', 'lifecycle');
/** Histories recorded before a patch, named after the patch id; kept for good, never re-recorded. */
export const PRE_PATCH_HISTORIES_DIR = join(LIFECYCLE_HISTORIES_DIR, 'pre-patch');

/** The scenarios a recording writes (file names without .json), and the states and plan statuses each reaches. */
export const LIFECYCLE_SCENARIOS = {
  'plan-paid-settled': ['PendingAssignment', 'Accepted', 'Active', 'Settled', 'plan:Active', 'plan:Completed'],
  'plan-defaulted-replanned-closed': ['Active', 'InArrears', 'Closed', 'plan:Defaulted', 'plan:Cancelled'],
  'disputed-rejected-then-upheld': ['Disputed', 'PendingAssignment', 'WrittenOff'],
  'disputed-mid-plan-written-off': ['Active', 'Disputed', 'WrittenOff', 'plan:Cancelled'],
  'payments-failed-refused-partial': ['Active', 'Settled', 'plan:Completed'],
  'sandbox-advance-defaulted-written-off': ['Active', 'InArrears', 'WrittenOff', 'plan:Defaulted'],
  'sandbox-advance-until-defaulted-closed': ['Active', 'InArrears', 'Closed', 'plan:Defaulted'],
  'continued-run-settled': ['Active', 'Settled', 'plan:Completed'],
} as const;

export type LifecycleScenario = keyof typeof LIFECYCLE_SCENARIOS;

const DAY = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const endOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`) + DAY;

type Handle = WorkflowHandle<typeof debtLifecycleWorkflow>;

/** What a scenario works with: its debt, its workflow, and the server's clock. */
export interface ScenarioRun {
  organizationId: string;
  debtId: string;
  handle: Handle;
  env: TestWorkflowEnvironment;
  skipTo(at: number): Promise<void>;
  monthlyPlan(instalmentCount: number): Promise<void>;
  pay(amount: string, reference: string, succeeded?: boolean): Promise<unknown>;
  dispute(): Promise<void>;
  statusBecomes(status: string): Promise<void>;
  schedule(): ReturnType<typeof planScheduleOf>;
}

/** Starts a debt's workflow on `taskQueue` and gives a scenario its helpers. */
export async function startScenario(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  options: { principal?: string; sandbox?: boolean; carried?: (debtId: string) => Promise<LifecycleState> } = {},
): Promise<ScenarioRun> {
  const { organization } = await createTestTenant({ mode: options.sandbox ? 'sandbox' : 'production' });
  const organizationId = organization.id;
  const debt = await testDb().transaction((trx) =>
    createDebt(trx, organizationId, inlineDebtBody({ originalPrincipal: options.principal ?? '600' })),
  );
  const debtId = debt.id;
  const start = async (carried?: LifecycleState) =>
    env.client.workflow.start(debtLifecycleWorkflow, {
      taskQueue,
      workflowId: workflowIds.debt(debtId),
      args: [
        {
          debtId,
          organizationId,
          sandbox: options.sandbox ?? false,
          ...(carried && { carried: { state: carried, dueAdvanced: [] } }),
        },
      ],
    });
  const run: ScenarioRun = {
    organizationId,
    debtId,
    env,
    handle: await start(),
    async skipTo(at) {
      const now = await env.currentTimeMs();
      if (at > now) await env.sleep(at - now);
    },
    async monthlyPlan(instalmentCount) {
      const firstDueDate = dateOf((await env.currentTimeMs()) + 10 * DAY);
      await run.handle.executeUpdate(agreePlanUpdate, {
        args: [{ instalmentCount, frequency: 'Monthly', firstDueDate }],
      });
    },
    pay: (amount, reference, succeeded = true) =>
      run.handle
        .executeUpdate(reportPaymentUpdate, { args: [{ amount, processorReference: reference, succeeded }] })
        .catch((err: unknown) => err), // a refusal is part of the scenario
    async dispute() {
      const reasonId = await recordLifecycleInput(testDb(), organizationId, debtId, 'disputeReason', {
        reason: 'I paid this already.',
      });
      await run.handle.executeUpdate(disputeUpdate, { args: [{ reasonId }] });
    },
    statusBecomes: async (status) =>
      void (await waitFor(async () => (await run.handle.query(stateQuery)).state.status === status, {
        what: `status ${status}`,
      })),
    schedule: () => planScheduleOf(debtId),
  };
  if (options.carried) {
    // As continue-as-new leaves it: this run ends, and a new run of the same id starts from the carried state.
    const carried = await options.carried(debtId);
    await run.handle.terminate('handing over to a continued run');
    run.handle = await start(carried);
  }
  return run;
}

/** Each scenario drives its debt to a final state; the recorder then writes the run's history. */
const SCENARIOS: Record<LifecycleScenario, (run: ScenarioRun) => Promise<void>> = {
  async 'plan-paid-settled'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(2);
    const [first, second] = await run.schedule();
    await run.skipTo(endOf(first!.dueDate) - DAY);
    await run.pay(first!.amount, `on-time-${run.debtId}`);
    await run.skipTo(endOf(second!.dueDate) + 3 * DAY); // late, inside the grace period
    await run.pay(second!.amount, `late-${run.debtId}`);
  },
  async 'plan-defaulted-replanned-closed'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(2);
    const [first] = await run.schedule();
    await run.skipTo(endOf(first!.dueDate) + 7 * DAY);
    await run.statusBecomes('InArrears');
    await run.monthlyPlan(3);
    await run.handle.executeUpdate(closeUpdate, { args: [{}] });
  },
  async 'disputed-rejected-then-upheld'(run) {
    await run.dispute();
    await run.handle.executeUpdate(resolveDisputeUpdate, { args: [{ outcome: 'rejected' }] });
    await run.handle.executeUpdate(acceptUpdate);
    await run.dispute();
    await run.handle.executeUpdate(resolveDisputeUpdate, { args: [{ outcome: 'upheld' }] });
  },
  async 'disputed-mid-plan-written-off'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(3);
    await run.dispute();
    await run.handle.executeUpdate(writeOffUpdate);
  },
  async 'payments-failed-refused-partial'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(3);
    await run.pay('200', `declined-${run.debtId}`, false);
    await run.pay('5000', `too-much-${run.debtId}`);
    await run.pay('50', `partial-${run.debtId}`);
    await run.pay('50', `partial-${run.debtId}`); // reported twice: counts once
    await run.pay('550', `rest-${run.debtId}`);
  },
  async 'sandbox-advance-defaulted-written-off'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(2);
    await run.handle.executeUpdate(advanceUpdate, { args: [{}] }); // the due date passes
    await run.handle.executeUpdate(advanceUpdate, { args: [{}] }); // the grace period ends: the plan defaults
    await run.handle.executeUpdate(writeOffUpdate);
  },
  async 'sandbox-advance-until-defaulted-closed'(run) {
    await run.handle.executeUpdate(acceptUpdate);
    await run.monthlyPlan(2);
    const [first] = await run.schedule();
    // Short of the grace period's end: the due date only. Then past it: the grace period ends, the plan defaults.
    await run.handle.executeUpdate(advanceUpdate, { args: [{ until: new Date(endOf(first!.dueDate)).toISOString() }] });
    await run.handle.executeUpdate(advanceUpdate, {
      args: [{ until: new Date(endOf(first!.dueDate) + 30 * DAY).toISOString() }],
    });
    await run.handle.executeUpdate(closeUpdate, { args: [{}] });
  },
  async 'continued-run-settled'(run) {
    const [first] = await run.schedule();
    await run.skipTo(endOf(first!.dueDate) - DAY);
    await run.pay('600', `all-${run.debtId}`);
  },
};

/** The state a first run leaves when it continues as new mid-plan: accepted, with a plan of three. */
function midPlanState(env: TestWorkflowEnvironment) {
  return async (debtId: string): Promise<LifecycleState> => {
    const handle = env.client.workflow.getHandle<typeof debtLifecycleWorkflow>(workflowIds.debt(debtId));
    await handle.executeUpdate(acceptUpdate);
    const firstDueDate = dateOf((await env.currentTimeMs()) + 10 * DAY);
    const view = await handle.executeUpdate(agreePlanUpdate, {
      args: [{ instalmentCount: 3, frequency: 'Monthly', firstDueDate }],
    });
    return view.state;
  };
}

/** Runs one scenario on a fresh debt and returns its history as JSON. */
export async function recordScenario(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  scenario: LifecycleScenario,
): Promise<string> {
  const run = await startScenario(env, taskQueue, {
    sandbox: scenario.startsWith('sandbox-'),
    ...(scenario === 'continued-run-settled' && { carried: midPlanState(env) }),
  });
  await SCENARIOS[scenario](run);
  await run.handle.result();
  return historyToJson(await run.handle.fetchHistory()) + '\n';
}

/** A worker of the lifecycle bundle with the real activities, for `work`'s duration. */
export async function withLifecycleWorker<T>(
  env: TestWorkflowEnvironment,
  work: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue('record-lifecycle');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await lifecycleBundle(),
    activities: createDebtLifecycleActivities({ db: testDb() }),
  });
  return worker.runUntil(work(taskQueue));
}

export const lifecycleBundle = () => bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle'));

/** Records every scenario into LIFECYCLE_HISTORIES_DIR. */
export async function recordLifecycleHistories(env: TestWorkflowEnvironment): Promise<void> {
  mkdirSync(LIFECYCLE_HISTORIES_DIR, { recursive: true });
  await withLifecycleWorker(env, async (taskQueue) => {
    for (const scenario of Object.keys(LIFECYCLE_SCENARIOS) as LifecycleScenario[]) {
      writeFileSync(join(LIFECYCLE_HISTORIES_DIR, `${scenario}.json`), await recordScenario(env, taskQueue, scenario));
    }
  });
}
