/**
 * The debt lifecycle's shared vocabulary (DECISIONS.md §3): what the `debt-<id>` workflow
 * holds as its state, the changes it asks its activity to make, and what comes back. Pure types and constants, so the
 * workflow can import them (type-only, through activities/debt-lifecycle.ts) and core/ can implement them.
 *
 * Money is carried as canonical decimal strings in the debt's currency ("1250.5"), never as binary floats.
 */
import type { DebtStatus, PlanFrequency, PlanStatus } from '../debts/debt-status';

export type { DebtStatus, PlanFrequency, PlanStatus };

/** One instalment of a plan: a calendar due date (`YYYY-MM-DD`), its amount and what has been paid towards it. */
export interface Instalment {
  dueDate: string;
  amount: string;
  paid: string;
}

/**
 * What the workflow keeps of a plan: enough for its one timer. The schedule itself (every instalment's amount and what
 * was paid) lives in the row (`debts.plan_schedule`), so activity results and history stay small however long the plan.
 */
export interface PlanState {
  status: PlanStatus;
  frequency: PlanFrequency;
  instalmentCount: number;
  instalmentsPaid: number;
  /** The oldest instalment not paid in full, which the plan's timer is for; null when every one is paid. */
  nextUnpaid: { index: number; dueDate: string } | null;
}

/** The workflow's state; the `debts` row is its projection. `version` is the row's `lifecycle_version`. */
export interface LifecycleState {
  status: DebtStatus;
  plan: PlanState | null;
  version: number;
}

/** What the debtor agrees to: the balance split into `instalmentCount` instalments, the last absorbing rounding. */
export interface PlanRequest {
  instalmentCount: number;
  frequency: PlanFrequency;
  /** `YYYY-MM-DD`, today or later. */
  firstDueDate: string;
}

/** A payment reported by the processor (or the sandbox's simulation). */
export interface PaymentReport {
  /** A positive decimal string in the debt's currency. */
  amount: string;
  /** The processor's id of the payment: a second report with the same reference counts once. */
  processorReference: string;
  succeeded: boolean;
}

/** The changes the workflow asks for; each is one database transaction with its events (the outbox). */
export type LifecycleChange =
  | { kind: 'accept' }
  /** `reasonId` names a row of `lifecycle_inputs` holding the debtor's words: free text stays out of history. */
  | { kind: 'dispute'; reasonId: string }
  | { kind: 'resolveDispute'; outcome: 'rejected' | 'upheld' }
  | { kind: 'agreePlan'; request: PlanRequest }
  | { kind: 'payment'; payment: PaymentReport }
  | { kind: 'default'; instalmentIndex: number }
  | { kind: 'close'; fieldsId?: string }
  | { kind: 'writeOff' };

export type LifecycleChangeKind = LifecycleChange['kind'];

export interface ApplyChangeInput {
  debtId: string;
  /** The version the workflow last saw: a change already applied at `expectedVersion + 1` is not applied twice. */
  expectedVersion: number;
  change: LifecycleChange;
  /**
   * The workflow's clock when it asked (ISO 8601): business time, which is what a plan's first due date is judged
   * against, so the time-skipping tests and a sandbox `advance` agree with the workflow's timers.
   */
  asOf?: string;
  /**
   * The Temporal update that asked for the change. The API's triggers use their request id (`req_…`) as the update
   * id, so the change's events, and their deliveries, carry the request that caused them (requestIdOfUpdate).
   */
  updateId?: string;
}

/**
 * `applied`: written, with its events, and `state` is the new state. `duplicate`: nothing written because it was
 * already (a retried activity, or a payment reference seen before); `state` is current. `refused`: a business rule
 * said no (e.g. an overpayment); nothing written; `code` and `detail` say why, as the API would.
 */
export type ApplyChangeResult =
  | { outcome: 'applied' | 'duplicate'; state: LifecycleState }
  | { outcome: 'refused'; state: LifecycleState; code: string; detail: string };

/** A grace period of 7 days after an instalment's due date ends (DECISIONS.md §3). */
export const GRACE_PERIOD_DAYS = 7;

/**
 * Why a lifecycle activity failed for good: the `type` of its non-retryable ApplicationFailure, so the workflow can
 * tell them apart. None is a business refusal (those are `refused` results); each means the workflow and the row
 * disagree in a way no retry can mend.
 */
export const LIFECYCLE_FAILURE_TYPES = {
  debtNotFound: 'DebtNotFound',
  versionMismatch: 'LifecycleVersionMismatch',
  inputNotFound: 'LifecycleInputNotFound',
} as const;

export type LifecycleFailureType = (typeof LIFECYCLE_FAILURE_TYPES)[keyof typeof LIFECYCLE_FAILURE_TYPES];

/** A running plan's one timer is for its oldest unpaid instalment: its due date, then the end of its grace period. */
export type TimerPurpose = 'instalmentDue' | 'gracePeriodEnds';

/**
 * The sandbox's `advance`. Without `until` it fires the debt's next timer now; with `until` (an ISO
 * 8601 instant) every timer scheduled at or before it, in order: a test clock for one debt.
 */
export interface AdvanceRequest {
  until?: string;
}

/** One timer `advance` fired, and where it left the debt. */
export interface FiredTimer {
  purpose: TimerPurpose;
  /** 0-based index of the instalment the timer is for, and that instalment's due date (`YYYY-MM-DD`). */
  instalmentIndex: number;
  dueDate: string;
  /** When the timer was scheduled to fire (ISO 8601). */
  at: string;
  status: DebtStatus;
  planStatus: PlanStatus | null;
}

/** The input a debt's workflow starts with: ids, and whether the sandbox's `advance` may fire its timers. */
export interface DebtLifecycleStart {
  debtId: string;
  organizationId: string;
  sandbox: boolean;
}
