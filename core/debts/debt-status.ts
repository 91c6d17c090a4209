/**
 * The debt lifecycle of DECISIONS.md §3 as data: states, the transitions each trigger may make, and the events each
 * emits. Pure (no I/O), so the API's PATCH rules and the debt-lifecycle workflow share one source of truth.
 */
import type { EventType } from '../events/outbox';

export const DEBT_STATUSES = [
  'PendingAssignment',
  'Accepted',
  'Active',
  'InArrears',
  'Disputed',
  'Settled',
  'WrittenOff',
  'Closed',
] as const;

export type DebtStatus = (typeof DEBT_STATUSES)[number];

export const TERMINAL_STATUSES: readonly DebtStatus[] = ['Settled', 'WrittenOff', 'Closed'];

export const NON_TERMINAL_STATUSES: readonly DebtStatus[] = DEBT_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/** How a resolved dispute ended: upheld (written off) or rejected (back to PendingAssignment). */
export const DISPUTE_OUTCOMES = ['Upheld', 'Rejected'] as const;
export type DisputeOutcome = (typeof DISPUTE_OUTCOMES)[number];

export const PLAN_STATUSES = ['Active', 'Completed', 'Cancelled', 'Defaulted'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const PLAN_FREQUENCIES = ['Weekly', 'Fortnightly', 'Monthly'] as const;
export type PlanFrequency = (typeof PLAN_FREQUENCIES)[number];

export type DebtTrigger =
  | 'debtorAccepts'
  | 'debtorDisputes'
  | 'disputeRejected'
  | 'disputeUpheld'
  | 'planAgreed'
  | 'instalmentMissed'
  | 'paymentLeavesBalance'
  | 'paymentClearsBalance'
  | 'clientCloses'
  | 'operatorWritesOff';

export interface Transition {
  from: readonly DebtStatus[];
  /** `'same'`: the status does not change (a part payment). */
  to: DebtStatus | 'same';
  /** Events in emission order: the specific event first, then `debt.updated` (DECISIONS.md §3). */
  events: readonly EventType[];
}

export const TRANSITIONS: Readonly<Record<DebtTrigger, Transition>> = {
  debtorAccepts: { from: ['PendingAssignment'], to: 'Accepted', events: ['debt.accepted'] },
  debtorDisputes: {
    from: ['PendingAssignment', 'Accepted', 'Active', 'InArrears'],
    to: 'Disputed',
    events: ['debt.disputed'],
  },
  disputeRejected: { from: ['Disputed'], to: 'PendingAssignment', events: ['debt.updated'] },
  disputeUpheld: { from: ['Disputed'], to: 'WrittenOff', events: ['debt.updated'] },
  planAgreed: { from: ['Accepted', 'InArrears'], to: 'Active', events: ['plan.activated'] },
  instalmentMissed: { from: ['Active'], to: 'InArrears', events: ['plan.defaulted'] },
  paymentLeavesBalance: { from: NON_TERMINAL_STATUSES, to: 'same', events: ['payment.received'] },
  paymentClearsBalance: { from: NON_TERMINAL_STATUSES, to: 'Settled', events: ['payment.received', 'debt.updated'] },
  clientCloses: { from: NON_TERMINAL_STATUSES, to: 'Closed', events: ['debt.updated'] },
  // Operations write a debt off from the CLI (`npm run cli`); no API route does.
  operatorWritesOff: { from: NON_TERMINAL_STATUSES, to: 'WrittenOff', events: ['debt.updated'] },
};

export function isTerminal(status: DebtStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The status a trigger moves a debt to, or null when the trigger is not allowed in `from`. */
export function nextStatus(from: DebtStatus, trigger: DebtTrigger): DebtStatus | null {
  const transition = TRANSITIONS[trigger];
  if (!transition.from.includes(from)) return null;
  return transition.to === 'same' ? from : transition.to;
}

/** `originalPrincipal` may change only before the debtor engages (DECISIONS.md §2). */
export function canChangePrincipal(status: DebtStatus): boolean {
  return status === 'PendingAssignment';
}

/** The statuses a client may set with PATCH: only a recall (`Closed`), from any non-terminal state. */
export const CLIENT_SETTABLE_STATUSES = ['Closed'] as const satisfies readonly DebtStatus[];
