/**
 * The plan's timers, computed from the workflow's state (pure and deterministic). An instalment due on date D is due
 * at the end of D in UTC; its grace period ends 7 days later, to the millisecond; an instalment still unpaid then
 * defaults the plan. Only the oldest unpaid instalment has a timer: payments go to it first.
 */
import type { Instalment, LifecycleState } from '../../activities/debt-lifecycle';

const DAY_MS = 86_400_000;
/** DECISIONS.md §3; the same as GRACE_PERIOD_DAYS of core/lifecycle/model.ts (checked by a unit test). */
export const GRACE_PERIOD_MS = 7 * DAY_MS;

export type TimerPurpose = 'instalmentDue' | 'gracePeriodEnds';

export interface PlanTimer {
  at: number;
  purpose: TimerPurpose;
  /** 0-based index of the instalment the timer is for. */
  instalmentIndex: number;
}

/** The end of a calendar date in UTC, in epoch milliseconds. */
export function endOfDueDate(dueDate: string): number {
  return Date.parse(`${dueDate}T00:00:00.000Z`) + DAY_MS;
}

/** `a >= b` for canonical decimal strings ("1250.5"), without binary floats. */
export function decimalAtLeast(a: string, b: string): boolean {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  return BigInt(ai + af.padEnd(scale, '0')) >= BigInt(bi + bf.padEnd(scale, '0'));
}

export function firstUnpaid(instalments: readonly Instalment[]): number {
  return instalments.findIndex((i) => !decimalAtLeast(i.paid, i.amount));
}

/**
 * The next timer of a running plan, or null. `dueAdvanced` lists instalments whose due date the sandbox's `advance`
 * already passed: for those the next timer is the end of the grace period.
 */
export function nextPlanTimer(state: LifecycleState, now: number, dueAdvanced: readonly number[]): PlanTimer | null {
  const plan = state.plan;
  if (state.status !== 'Active' || plan?.status !== 'Active') return null;
  const index = firstUnpaid(plan.instalments);
  const instalment = plan.instalments[index];
  if (index < 0 || !instalment) return null;
  const dueAt = endOfDueDate(instalment.dueDate);
  if (now < dueAt && !dueAdvanced.includes(index))
    return { at: dueAt, purpose: 'instalmentDue', instalmentIndex: index };
  return { at: dueAt + GRACE_PERIOD_MS, purpose: 'gracePeriodEnds', instalmentIndex: index };
}
