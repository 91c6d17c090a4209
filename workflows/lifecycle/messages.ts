/**
 * The `debt-<id>` workflow's messages (debt-lifecycle.ts runs it): its input, the view its updates and query answer,
 * and the updates and query themselves, by the names in core/temporal/names.ts. Clients and tests import these.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  AdvanceRequest,
  DebtLifecycleStart,
  FiredTimer,
  LifecycleState,
  PaymentReport,
  PlanRequest,
} from '../../activities/debt-lifecycle';
import { LIFECYCLE_UPDATES, QUERIES } from '../../core/temporal/names';
import type { PlanTimer } from './plan-timers';

/** Ids, and whether the sandbox's `advance` may fire timers; `carried` is set by continue-as-new. */
export interface DebtLifecycleInput extends DebtLifecycleStart {
  carried?: CarriedState;
}

export interface CarriedState {
  state: LifecycleState;
  dueAdvanced: number[];
}

export interface LifecycleView {
  debtId: string;
  state: LifecycleState;
  /** The next timer and what it is for; null when nothing is scheduled. */
  nextTimer: { at: string; purpose: PlanTimer['purpose']; instalmentIndex: number } | null;
}

export const acceptUpdate = defineUpdate<LifecycleView>(LIFECYCLE_UPDATES.accept);
export const disputeUpdate = defineUpdate<LifecycleView, [{ reasonId: string }]>(LIFECYCLE_UPDATES.dispute);
export const resolveDisputeUpdate = defineUpdate<LifecycleView, [{ outcome: 'rejected' | 'upheld' }]>(
  LIFECYCLE_UPDATES.resolveDispute,
);
export const agreePlanUpdate = defineUpdate<LifecycleView, [PlanRequest]>(LIFECYCLE_UPDATES.agreePlan);
export const reportPaymentUpdate = defineUpdate<LifecycleView, [PaymentReport]>(LIFECYCLE_UPDATES.reportPayment);
/** `fieldsId`: the fields the same PATCH changes, stored as an input (core/lifecycle/inputs.ts), applied with it. */
export const closeUpdate = defineUpdate<LifecycleView, [{ fieldsId?: string }]>(LIFECYCLE_UPDATES.close);
export const writeOffUpdate = defineUpdate<LifecycleView>(LIFECYCLE_UPDATES.writeOff);
/** What `advance` fired, in order, besides the view after it (runs recorded before `fired` existed answered none). */
export interface AdvanceResult extends LifecycleView {
  fired: FiredTimer[];
}
/** `{}` fires the next timer; runs recorded before the argument existed sent none (the handler sees undefined). */
export const advanceUpdate = defineUpdate<AdvanceResult, [AdvanceRequest]>(LIFECYCLE_UPDATES.advance);
export const stateQuery = defineQuery<LifecycleView>(QUERIES.state);
