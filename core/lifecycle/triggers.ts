/**
 * The lifecycle's triggers as a service (DECISIONS.md §3): the one way the API, the sandbox's simulation endpoints,
 * the debtor portal and the payment processor move a debt. Each trigger is an update to `debt-<id>` (started now if
 * the outbox consumer has not started it yet), so the caller learns whether the transition was accepted; it answers
 * with the debt as the API returns it, after the workflow's activity committed the change and its events.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { getDebt, type Debt } from '../debts/debts';
import type { Db } from '../platform/db';
import { ApiError, ERROR_CATALOGUE, errors, type ErrorCode } from '../platform/errors';
import type { Mode } from '../platform/mode';
import { LIFECYCLE_UPDATES } from '../temporal/names';
import { recordLifecycleInput, type RecallFields } from './inputs';
import type { AdvanceRequest, FiredTimer, PaymentReport, PlanRequest } from './model';
import { startDebtWorkflowOperation } from './workflow-start';
import { createTriggerLimit, type TriggerLimit } from './trigger-limit';

/** How long a caller waits for the workflow to answer before being told to retry. */
export const TRIGGER_TIMEOUT_MS = 10_000;

export interface DebtTriggers {
  accept(organizationId: string, debtId: string): Promise<Debt>;
  dispute(organizationId: string, debtId: string, reason: string): Promise<Debt>;
  resolveDispute(organizationId: string, debtId: string, outcome: 'rejected' | 'upheld'): Promise<Debt>;
  agreePlan(organizationId: string, debtId: string, request: PlanRequest): Promise<Debt>;
  reportPayment(organizationId: string, debtId: string, payment: PaymentReport): Promise<Debt>;
  /** The client's recall (`PATCH status=Closed`), with the fields the same request changes: one change, one event. */
  close(organizationId: string, debtId: string, fields?: RecallFields): Promise<Debt>;
  /** Operations' write-off. */
  writeOff(organizationId: string, debtId: string): Promise<Debt>;
  /** Sandbox only: fire the debt's next timer now, or every timer due up to `request.until`; says what fired. */
  advance(organizationId: string, debtId: string, request?: AdvanceRequest): Promise<AdvanceOutcome>;
  /**
   * The same triggers on behalf of an API request: its id (`req_…`, unique per request) is the update's id, so the
   * events the change records, and their deliveries, carry it (`requestIdOfUpdate`).
   */
  forRequest(requestId: string): DebtTriggers;
}

/** What the sandbox's `advance` did: the timers it fired, in order, and the debt after them. */
export interface AdvanceOutcome {
  debt: Debt;
  fired: FiredTimer[];
}

export interface DebtTriggerDeps {
  db: Db;
  /** A client in the mode's namespace. */
  client: Client;
  mode: Mode;
  taskQueue?: string;
  /** Shared by every request's triggers in the process; one is made from DEFAULT_TRIGGERS_IN_FLIGHT if absent. */
  limit?: TriggerLimit;
}

export function createDebtTriggers(deps: DebtTriggerDeps, requestId?: string): DebtTriggers {
  const { db, client, mode, taskQueue } = deps;
  const limit = deps.limit ?? createTriggerLimit();

  /** `args` may be computed once the debt is known to be the organisation's (a dispute stores its reason first). */
  /** Counted against the process's cap from the first read: past it, nothing is read, stored or asked. */
  async function trigger(...args: Parameters<typeof triggerNow>): Promise<Debt> {
    return (await limit.run(() => triggerNow(...args))).debt;
  }

  /** The debt after the update, and the update's own answer (the workflow's view, or what `advance` fired). */
  async function triggerNow(
    organizationId: string,
    debtId: string,
    update: string,
    args: unknown[] | (() => Promise<unknown[]>),
  ): Promise<{ debt: Debt; answer: unknown }> {
    const debt = await getDebt(db, organizationId, debtId);
    if (!debt) throw errors.notFound('debt');
    const updateArgs = typeof args === 'function' ? await args() : args;
    let answer: unknown;
    try {
      answer = await client.connection.withDeadline(Date.now() + TRIGGER_TIMEOUT_MS, () =>
        client.workflow.executeUpdateWithStart(update, {
          args: updateArgs,
          ...(requestId ? { updateId: requestId } : {}),
          startWorkflowOperation: startDebtWorkflowOperation({ debtId, organizationId }, mode, taskQueue),
        }),
      );
    } catch (err) {
      throw await asApiError(err, organizationId, debtId);
    }
    const after = await getDebt(db, organizationId, debtId);
    if (!after) throw errors.notFound('debt');
    return { debt: after, answer };
  }

  /** A worker of the code before `fired` existed answered without it: it fired one timer, which it did not name. */
  async function advance(organizationId: string, debtId: string, request: AdvanceRequest): Promise<AdvanceOutcome> {
    const { debt, answer } = await limit.run(() =>
      triggerNow(organizationId, debtId, LIFECYCLE_UPDATES.advance, [request]),
    );
    const fired = (answer as { fired?: FiredTimer[] } | undefined)?.fired ?? [];
    return { debt, fired };
  }

  /** A refusal carries the API's error code as its failure type; a finished debt's workflow takes no more updates. */
  async function asApiError(err: unknown, organizationId: string, debtId: string): Promise<unknown> {
    const failure = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (failure instanceof ApplicationFailure && failure.type && failure.type in ERROR_CATALOGUE) {
      return new ApiError(failure.type as ErrorCode, failure.message);
    }
    const debt = await getDebt(db, organizationId, debtId).catch(() => undefined);
    if (debt && ['Settled', 'WrittenOff', 'Closed'].includes(debt.status)) {
      return new ApiError('invalid_state', `The debt is ${debt.status}: its life has ended.`);
    }
    return new ApiError('service_unavailable', 'The debt’s workflow did not answer; retry shortly.');
  }

  return {
    accept: (org, id) => trigger(org, id, LIFECYCLE_UPDATES.accept, []),
    // The reason is stored first and only its id travels, never the text.
    dispute: (org, id, reason) =>
      trigger(org, id, LIFECYCLE_UPDATES.dispute, async () => [
        { reasonId: await recordLifecycleInput(db, org, id, 'disputeReason', { reason }) },
      ]),
    resolveDispute: (org, id, outcome) => trigger(org, id, LIFECYCLE_UPDATES.resolveDispute, [{ outcome }]),
    agreePlan: (org, id, request) => trigger(org, id, LIFECYCLE_UPDATES.agreePlan, [request]),
    reportPayment: (org, id, payment) => trigger(org, id, LIFECYCLE_UPDATES.reportPayment, [payment]),
    // Fields travel as a stored input's id, as a dispute's reason does; none stored when there are none.
    close: (org, id, fields = {}) =>
      trigger(org, id, LIFECYCLE_UPDATES.close, async () =>
        Object.keys(fields).length === 0
          ? [{}]
          : [{ fieldsId: await recordLifecycleInput(db, org, id, 'recallFields', fields) }],
      ),
    writeOff: (org, id) => trigger(org, id, LIFECYCLE_UPDATES.writeOff, []),
    advance: (org, id, request = {}) => advance(org, id, request),
    forRequest: (id) => createDebtTriggers({ ...deps, limit }, id),
  };
}
