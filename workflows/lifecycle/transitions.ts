/**
 * Which trigger the debt's workflow accepts in which state (DECISIONS.md §3), checked by the update validators so
 * that a refused trigger leaves no trace in history. The activity checks again against core's table
 * (core/debts/debt-status.ts) inside its transaction; test/unit/lifecycle-transitions.test.ts keeps the two equal.
 */
import type { DebtStatus, LifecycleChangeKind } from '../../activities/debt-lifecycle';

const NON_TERMINAL: readonly DebtStatus[] = ['PendingAssignment', 'Accepted', 'Active', 'InArrears', 'Disputed'];

export const ALLOWED_FROM: Readonly<Record<LifecycleChangeKind, readonly DebtStatus[]>> = {
  accept: ['PendingAssignment'],
  dispute: ['PendingAssignment', 'Accepted', 'Active', 'InArrears'],
  resolveDispute: ['Disputed'],
  agreePlan: ['Accepted', 'InArrears'],
  payment: NON_TERMINAL,
  default: ['Active'],
  close: NON_TERMINAL,
  writeOff: NON_TERMINAL,
};

export function isTerminal(status: DebtStatus): boolean {
  return !NON_TERMINAL.includes(status);
}

export function isAllowed(kind: LifecycleChangeKind, status: DebtStatus): boolean {
  return ALLOWED_FROM[kind].includes(status);
}
