/**
 * One debt's life (DECISIONS.md §3): `debt-<debtId>` on the `lifecycle` task queue owns the debt's state; the `debts`
 * row is its projection, written only by the activity, with the transition's events in the same transaction.
 *
 * Triggers arrive as updates, so the caller learns whether the transition was accepted: a validator refuses what the
 * current state does not allow (no trace in history); the handler asks the activity to make the change and adopts the
 * state it returns. Handlers run one at a time, in arrival order. A running plan has one timer: the due date of its
 * oldest unpaid instalment, then the end of that instalment's 7-day grace period, when the plan defaults.
 * Inputs are ids; the debtor's words (a dispute reason) travel as the id of a stored input, never as text.
 * Its input, view, updates and query are lifecycle/messages.ts.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  defineUpdate,
  log,
  metricMeter,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  AdvanceRequest,
  DebtLifecycleActivities,
  FiredTimer,
  LifecycleChange,
  LifecycleState,
} from '../activities/debt-lifecycle';
import { PATCH_IDS, SEARCH_ATTRIBUTE_KEYS } from '../core/temporal/names';
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
  type AdvanceResult,
  type DebtLifecycleInput,
  type LifecycleView,
} from './lifecycle/messages';
import { isAllowed, isTerminal } from './lifecycle/transitions';
import { nextPlanTimer, sameTimer, type PlanTimer } from './lifecycle/plan-timers';
import { timerRetryDelay } from './lifecycle/timer-retry';

/** Past this many events a run hands its state to a new one, so a ten-year plan's history stays bounded. */
const HISTORY_LIMIT = 2_000;

// A database outage is waited out (a default must not be dropped); the two failures no retry can fix are named.
const { loadDebtLifecycle, applyDebtLifecycleChange } = proxyActivities<DebtLifecycleActivities>({
  startToCloseTimeout: '10 seconds',
  // The activity marks what no retry can mend (a missing debt, a version the row does not match) non-retryable.
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * The first load, as a local activity: it runs inside the run's first workflow task, so starting a debt's run costs the
 * server one workflow task instead of a workflow task, an activity task and a second workflow task (a burst of new
 * debts, a placement's thousands, are mostly first loads). Same retries; a worker killed mid-load is noticed by the
 * workflow task's timeout and the next worker loads again. Runs from before the patch replay their activity task.
 */
const loadDebtLifecycleFirst = proxyLocalActivities<DebtLifecycleActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  localRetryThreshold: '2 seconds',
}).loadDebtLifecycle;

function refuse(code: string, detail: string): never {
  throw ApplicationFailure.create({ type: code, message: detail, nonRetryable: true });
}

export async function debtLifecycleWorkflow(input: DebtLifecycleInput): Promise<LifecycleView> {
  /** Undefined only until the first activity has loaded it: handlers are registered before that, so none is lost. */
  let loaded: LifecycleState | undefined = input.carried?.state;
  const dueAdvanced = [...(input.carried?.dueAdvanced ?? [])];
  /** Bumped on every change the main loop must look at again. */
  let revision = 0;
  const loading = loaded
    ? Promise.resolve()
    : (patched(PATCH_IDS.lifecycleLoadLocal) ? loadDebtLifecycleFirst : loadDebtLifecycle)(input.debtId).then(
        (found) => {
          loaded = found.state;
          publishStatus();
        },
      );
  /** Handlers queue behind the load, then behind each other. */
  let queue: Promise<unknown> = loading;

  const state = (): LifecycleState => {
    if (!loaded) throw ApplicationFailure.create({ message: 'The debt’s state is still loading; try again.' });
    return loaded;
  };
  const timer = () => nextPlanTimer(state(), Date.now(), dueAdvanced);
  const view = (): LifecycleView => {
    const next = timer();
    const nextTimer = next && { ...next, at: new Date(next.at).toISOString() };
    return { debtId: input.debtId, state: state(), nextTimer };
  };
  function publishStatus(): void {
    upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: input.organizationId },
      { key: SEARCH_ATTRIBUTE_KEYS.debtId, value: input.debtId },
      { key: SEARCH_ATTRIBUTE_KEYS.debtStatus, value: state().status },
    ]);
  }

  /** Handlers run one at a time: each sees the state the previous one left. */
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  }

  /** Before the state is loaded a validator lets the update in: its handler checks once the state is there. */
  function assertAllowed(kind: LifecycleChange['kind']): void {
    const status = loaded?.status;
    if (status && !isAllowed(kind, status))
      refuse('invalid_state', `${kind} is not allowed while the debt is ${status}.`);
  }

  /** `updateId`: the update that asked for it; the API uses its request id, so the change's events carry it. */
  async function apply(change: LifecycleChange, updateId?: string): Promise<LifecycleView> {
    assertAllowed(change.kind); // again: an earlier handler may have moved the state while this one waited
    const before = state();
    const timerBefore = timer();
    const result = await applyDebtLifecycleChange({
      debtId: input.debtId,
      expectedVersion: before.version,
      change,
      asOf: new Date().toISOString(), // workflow time: deterministic, and the clock the plan's timers run on
      ...(updateId ? { updateId } : {}),
    });
    loaded = result.state;
    if (mustLookAgain(before, timerBefore)) revision++;
    if (loaded.status !== before.status) publishStatus();
    if (result.outcome === 'refused') refuse(result.code, result.detail);
    return view();
  }

  const pastHistoryLimit = () => workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested;

  /**
   * Whether the main loop must wake after a change. Before the patch it always did, so a failed or partial payment
   * cancelled the plan's timer and started the same one again; since, only a new status, a moved timer or a history
   * due to continue as new wakes it.
   */
  function mustLookAgain(before: LifecycleState, timerBefore: PlanTimer | null): boolean {
    if (!patched(PATCH_IDS.lifecycleKeepUnchangedTimer)) return true;
    return state().status !== before.status || !sameTimer(timerBefore, timer()) || pastHistoryLimit();
  }

  /** The timer's effect, if it is still the current timer and due: the default at the end of a grace period. */
  async function fire(due: PlanTimer, early: boolean): Promise<LifecycleView> {
    const current = timer();
    if (!current || current.purpose !== due.purpose || current.instalmentIndex !== due.instalmentIndex) return view();
    if (!early && current.at > Date.now()) return view();
    if (current.purpose === 'instalmentDue') {
      dueAdvanced.push(current.instalmentIndex); // only the sandbox gets here early; real time needs no mark
      revision++;
      return view();
    }
    return apply({ kind: 'default', instalmentIndex: current.instalmentIndex });
  }

  /** Fires `due` ahead of time (the sandbox) and notes what it fired and where that left the debt. */
  async function fireEarly(due: PlanTimer, fired: FiredTimer[]): Promise<void> {
    await fire(due, true);
    const { instalmentIndex, dueDate, purpose } = due;
    const after = state();
    const planStatus = after.plan?.status ?? null;
    fired.push({
      purpose,
      instalmentIndex,
      dueDate,
      at: new Date(due.at).toISOString(),
      status: after.status,
      planStatus,
    });
  }

  /**
   * The sandbox's clock for this debt. With no `until`, the next timer fires now (refused when there is none). With
   * `until`, every timer scheduled at or before it fires, in order, within this one handler, so no other trigger
   * slips between them: at most an instalment's due date, then the end of its grace period, which defaults the plan.
   * A worker of the code before `until` existed ignored it and fired one timer: such a history replays that way (the
   * patch), since an API of the new code may have sent `until` to an old worker while both were deployed.
   */
  async function advance(request?: AdvanceRequest): Promise<AdvanceResult> {
    const fired: FiredTimer[] = [];
    if (request?.until === undefined || !patched(PATCH_IDS.lifecycleAdvanceUntil)) {
      const next = timer();
      if (!next) refuse('invalid_state', 'The debt has no timer running.');
      await fireEarly(next, fired);
      return { ...view(), fired };
    }
    const until = Date.parse(request.until);
    for (let next = timer(); next && next.at <= until; next = timer()) {
      await fireEarly(next, fired);
      if (sameTimer(next, timer())) break; // a timer its firing did not move would fire for ever
    }
    return { ...view(), fired };
  }

  /** A trigger: refused by its validator when the state does not allow it, else applied in its turn. */
  function onTrigger<Args extends unknown[]>(
    update: ReturnType<typeof defineUpdate<LifecycleView, Args>>,
    kind: LifecycleChange['kind'],
    build: (...args: NoInfer<Args>) => LifecycleChange,
  ): void {
    setHandler<LifecycleView, Args, typeof update>(
      update,
      (...args: Args) => {
        const updateId = currentUpdateInfo()?.id; // read now: the handler may wait for an earlier one
        return serialized(() => apply(build(...args), updateId));
      },
      { validator: () => assertAllowed(kind) },
    );
  }

  setHandler(stateQuery, view);
  onTrigger(acceptUpdate, 'accept', () => ({ kind: 'accept' }));
  onTrigger(disputeUpdate, 'dispute', ({ reasonId }) => ({ kind: 'dispute', reasonId }));
  onTrigger(resolveDisputeUpdate, 'resolveDispute', ({ outcome }) => ({ kind: 'resolveDispute', outcome }));
  onTrigger(agreePlanUpdate, 'agreePlan', (request) => ({ kind: 'agreePlan', request }));
  onTrigger(reportPaymentUpdate, 'payment', (payment) => ({ kind: 'payment', payment }));
  // Runs recorded before the argument existed sent none: `request` is then undefined.
  onTrigger(closeUpdate, 'close', (request?: { fieldsId?: string }) =>
    request?.fieldsId ? { kind: 'close', fieldsId: request.fieldsId } : { kind: 'close' },
  );
  onTrigger(writeOffUpdate, 'writeOff', () => ({ kind: 'writeOff' }));
  setHandler(advanceUpdate, (request?: AdvanceRequest) => serialized(() => advance(request)), {
    validator: (request?: AdvanceRequest) => {
      if (!input.sandbox) refuse('invalid_state', 'Timers can be advanced only in the sandbox.');
      // Advancing to a moment may find nothing due: that is an answer (nothing fired), not a refusal.
      if (request?.until === undefined && loaded && !timer()) refuse('invalid_state', 'The debt has no timer running.');
    },
  });
  await loading;
  if (input.carried) publishStatus();

  /**
   * A timer's effect that failed (a default refused, a version the row no longer matches) must not end the run, or
   * the debt would lose its life and every later trigger would fail: it is logged, counted, the state reloaded from
   * the row, and the timer tried again after a growing pause that any change cuts short. Runs recorded before this
   * failed as they did (the patch).
   */
  let timerFailures = 0;
  const failedTimers = metricMeter.createCounter(
    'client_api_lifecycle_timer_failures',
    'failures',
    'Plan timers whose effect failed and will be tried again',
  );
  async function fireOrRetryLater(due: PlanTimer, moved: () => boolean): Promise<void> {
    try {
      await serialized(() => fire(due, false));
      timerFailures = 0;
    } catch (err) {
      if (!patched(PATCH_IDS.lifecycleRetryFailedTimer)) throw err;
      timerFailures++;
      failedTimers.add(1, { purpose: due.purpose });
      const retryInMs = timerRetryDelay(timerFailures);
      log.warn('plan timer failed; reloading the debt and trying again', {
        debtId: input.debtId,
        purpose: due.purpose,
        instalmentIndex: due.instalmentIndex,
        failures: timerFailures,
        retryInMs,
        error: err instanceof Error ? err.message : String(err),
      });
      await serialized(async () => {
        loaded = (await loadDebtLifecycle(input.debtId)).state;
        publishStatus();
      });
      await condition(moved, retryInMs);
    }
  }

  while (!isTerminal(state().status)) {
    const seen = revision;
    const next = timer();
    const moved = () => revision !== seen;
    const changed = next ? await condition(moved, Math.max(0, next.at - Date.now())) : (await condition(moved), true);
    if (!changed && next) await fireOrRetryLater(next, moved);
    if (pastHistoryLimit()) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof debtLifecycleWorkflow>({ ...input, carried: { state: state(), dueAdvanced } });
    }
  }
  await condition(allHandlersFinished);
  return view();
}
