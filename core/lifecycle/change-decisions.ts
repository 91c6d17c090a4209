/**
 * What each lifecycle change does to a locked debt row (DECISIONS.md §3): refuse it, recognise it as already made,
 * or the columns to write and the specific event to emit. Runs inside the caller's transaction; only a payment
 * writes here (its transaction row), everything else is written by apply-change.ts.
 */
import { nextStatus, type DebtStatus, type DebtTrigger } from '../debts/debt-status';
import { rowAmounts } from '../debts/debts';
import { LifecycleIntegrityError } from './errors';
import { loadLifecycleInput } from './inputs';
import { metadataText, patchedMetadata } from '../debts/metadata';
import type { LifecycleRow } from './lifecycle-row';
import { LIFECYCLE_FAILURE_TYPES, type LifecycleChange } from './model';
import { isInstalmentPaid, schedulePlan } from './plan-schedule';
import { decidePayment } from './payment-change';
import {
  apply,
  refused,
  refusedInState,
  type ChangeDecision,
  type DebtColumnChanges,
  type DecisionContext,
} from './change-effects';

/** A running plan stops when the debt leaves its course (dispute, recall, write-off): nothing more falls due. */
function cancelActivePlan(row: LifecycleRow): DebtColumnChanges {
  return row.plan_status === 'Active' ? { plan_status: 'Cancelled', plan_next_due_date: null } : {};
}

/** A plain move of status (and a running plan cancelled when `cancelPlan`), or its refusal. */
function move(row: LifecycleRow, trigger: DebtTrigger, what: string, cancelPlan = false): ChangeDecision {
  const to = nextStatus(row.status, trigger);
  if (to === null) return refusedInState(row, what);
  return apply({ status: to, ...(cancelPlan ? cancelActivePlan(row) : {}) });
}

/**
 * The client's recall, with the fields its PATCH changes at the same time (`fieldsId`, a stored input): one change,
 * one transaction, one `debt.updated` carrying both.
 */
async function close({ trx, row }: DecisionContext, fieldsId: string | undefined): Promise<ChangeDecision> {
  const decision = move(row, 'clientCloses', 'Closing the debt', true);
  if (decision.outcome !== 'apply' || fieldsId === undefined) return decision;
  const fields = await loadLifecycleInput(trx, row.organization_id, row.id, fieldsId, 'recallFields');
  if (!fields) {
    throw new LifecycleIntegrityError(
      LIFECYCLE_FAILURE_TYPES.inputNotFound,
      `No recall fields ${fieldsId} were recorded for debt ${row.id}.`,
    );
  }
  const changes: DebtColumnChanges = { ...decision.effect.changes };
  if (fields.externalAccountId !== undefined) changes.external_account_id = fields.externalAccountId;
  if (fields.clientReference !== undefined) changes.client_reference = fields.clientReference || null;
  const metadata = patchedMetadata(row.metadata, fields.metadata);
  if (metadata) changes.metadata = metadataText(metadata);
  return apply(changes, decision.effect.event);
}

async function dispute({ trx, row }: DecisionContext, reasonId: string): Promise<ChangeDecision> {
  const to = nextStatus(row.status, 'debtorDisputes');
  if (to === null) return refusedInState(row, 'Disputing the debt');
  const input = await loadLifecycleInput(trx, row.organization_id, row.id, reasonId, 'disputeReason');
  if (!input) {
    throw new LifecycleIntegrityError(
      LIFECYCLE_FAILURE_TYPES.inputNotFound,
      `No dispute reason ${reasonId} was recorded for debt ${row.id}.`,
    );
  }
  const newDispute = { dispute_reason: input.reason, dispute_outcome: null, dispute_resolved_at: null };
  return apply({ status: to, ...newDispute, ...cancelActivePlan(row) }, 'debt.disputed');
}

/**
 * A resolved dispute records its outcome and when. `disputeReason` is kept: it is what was
 * disputed, and the outcome says how that ended; a later dispute replaces the reason and clears the outcome.
 */
function resolveDispute({ trx, row }: DecisionContext, outcome: 'rejected' | 'upheld'): ChangeDecision {
  const decision =
    outcome === 'rejected'
      ? move(row, 'disputeRejected', 'Rejecting a dispute')
      : move(row, 'disputeUpheld', 'Upholding a dispute');
  if (decision.outcome !== 'apply') return decision;
  const resolution: DebtColumnChanges = {
    dispute_outcome: outcome === 'rejected' ? 'Rejected' : 'Upheld',
    dispute_resolved_at: trx.fn.now(3),
  };
  return apply({ ...decision.effect.changes, ...resolution }, decision.effect.event);
}

function agreePlan({ row, today }: DecisionContext, request: Parameters<typeof schedulePlan>[2]): ChangeDecision {
  const to = nextStatus(row.status, 'planAgreed');
  if (to === null) return refusedInState(row, 'Agreeing a plan');
  const planned = schedulePlan(rowAmounts(row).outstanding, row.currency, request, today);
  if (!planned.ok) return refused(planned.refusal.code, planned.refusal.detail);
  const [first] = planned.instalments;
  const changes: DebtColumnChanges = {
    status: to,
    plan_status: 'Active',
    plan_instalment_amount: first!.amount,
    plan_frequency: request.frequency,
    plan_instalment_count: request.instalmentCount,
    plan_instalments_paid: 0,
    plan_next_due_date: first!.dueDate,
    plan_schedule: JSON.stringify(planned.instalments),
  };
  return apply(changes, 'plan.activated');
}

/** An instalment unpaid at the end of its grace period; refused if a payment has meanwhile paid it. */
function defaultPlan({ row }: DecisionContext, instalmentIndex: number): ChangeDecision {
  const to: DebtStatus | null = nextStatus(row.status, 'instalmentMissed');
  if (to === null || row.plan_status !== 'Active') return refusedInState(row, 'Defaulting the plan');
  const schedule = row.plan_schedule ?? [];
  const instalment = schedule[instalmentIndex];
  if (!Number.isInteger(instalmentIndex) || instalment === undefined) {
    return refused('invalid_request', `The plan has no instalment ${instalmentIndex}.`);
  }
  if (isInstalmentPaid(schedule, instalmentIndex)) {
    return refused('invalid_state', `Instalment ${instalmentIndex} (due ${instalment.dueDate}) is paid in full.`);
  }
  return apply({ status: to, plan_status: 'Defaulted', plan_next_due_date: null }, 'plan.defaulted');
}

export async function decideChange(context: DecisionContext, change: LifecycleChange): Promise<ChangeDecision> {
  const { row } = context;
  switch (change.kind) {
    case 'accept': {
      const decision = move(row, 'debtorAccepts', 'Accepting the debt');
      return decision.outcome === 'apply' ? apply(decision.effect.changes, 'debt.accepted') : decision;
    }
    case 'dispute':
      return dispute(context, change.reasonId);
    case 'resolveDispute':
      return resolveDispute(context, change.outcome);
    case 'agreePlan':
      return agreePlan(context, change.request);
    case 'payment':
      return decidePayment(context, change.payment);
    case 'default':
      return defaultPlan(context, change.instalmentIndex);
    case 'close':
      return close(context, change.fieldsId);
    case 'writeOff':
      return move(row, 'operatorWritesOff', 'Writing the debt off', true);
  }
}
