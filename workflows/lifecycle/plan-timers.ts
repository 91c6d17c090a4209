/**
 * The plan's timers, computed from the workflow's state (pure and deterministic). An instalment due on date D is due
 * at the end of D in UTC; its grace period ends 7 days later, to the millisecond; an instalment still unpaid then
 * defaults the plan. Only the oldest unpaid instalment has a timer: payments go to it first.
 */
import type { LifecycleState, TimerPurpose } from '../../activities/debt-lifecycle';

export type { TimerPurpose };

const DAY_MS = 86_400_000;
/** DECISIONS.md §3; the same as GRACE_PERIOD_DAYS of core/lifecycle/model.ts (checked by a unit test). */
export const GRACE_PERIOD_MS = 7 * DAY_MS;

export interface PlanTimer {
  at: number;
  purpose: TimerPurpose;
  /** 0-based index of the instalment the timer is for, and its due date (`YYYY-MM-DD`). */
  instalmentIndex: number;
  dueDate: string;
}

/** The end of a calendar date in UTC, in epoch milliseconds. */
export function endOfDueDate(dueDate: string): number {
  return Date.parse(`${dueDate}T00:00:00.000Z`) + DAY_MS;
}

/**
 * The next timer of a running plan, or null. `dueAdvanced` lists instalments whose due date the sandbox's `advance`
 * already passed: for those the next timer is the end of the grace period.
 */
export function nextPlanTimer(state: LifecycleState, now: number, dueAdvanced: readonly number[]): PlanTimer | null {
  const plan = state.plan;
  const next = plan?.nextUnpaid;
  if (state.status !== 'Active' || plan?.status !== 'Active' || !next) return null;
  const dueAt = endOfDueDate(next.dueDate);
  if (now < dueAt && !dueAdvanced.includes(next.index)) {
    return { at: dueAt, purpose: 'instalmentDue', instalmentIndex: next.index, dueDate: next.dueDate };
  }
  return {
    at: dueAt + GRACE_PERIOD_MS,
    purpose: 'gracePeriodEnds',
    instalmentIndex: next.index,
    dueDate: next.dueDate,
  };
}

/** Whether two timers are the same timer: same moment, same purpose, same instalment (or both none). */
export function sameTimer(a: PlanTimer | null, b: PlanTimer | null): boolean {
  if (!a || !b) return a === b;
  return a.at === b.at && a.purpose === b.purpose && a.instalmentIndex === b.instalmentIndex;
}
