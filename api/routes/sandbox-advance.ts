/**
 * The sandbox's `advance` between the wire and the lifecycle: `until` as the instant the workflow
 * compares its timers with, and each fired timer as the answer names it (api/schemas/sandbox-advance.ts).
 */
import { TRANSITIONS } from '../../core/debts/debt-status';
import type { FiredTimer } from '../../core/lifecycle/model';
import type { AdvanceOutcome } from '../../core/lifecycle/triggers';
import { errors } from '../../core/platform/errors';
import type { TIMER_EFFECTS, TIMER_NAMES } from '../schemas/sandbox-advance';

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** A leap second (`…:60`), which the date-time format accepts and Date.parse does not. */
const LEAP_SECOND = /:60(?=(\.\d+)?(Z|[+-]\d{2}:\d{2})$)/i;

/**
 * The instant `until` names, as ISO 8601 UTC. A date is the end of that day (UTC): an instalment due that day is then
 * late, as it is at the end of its due date in real time. The schema has checked the form already.
 */
export function untilInstant(until: string): string {
  if (DATE_ONLY.test(until)) return new Date(Date.parse(`${until}T00:00:00.000Z`) + DAY_MS).toISOString();
  let ms = Date.parse(until);
  if (Number.isNaN(ms) && LEAP_SECOND.test(until)) ms = Date.parse(until.replace(LEAP_SECOND, ':59')) + 1_000;
  if (Number.isNaN(ms)) {
    throw errors.invalidRequest('The request body is invalid: body.until is not a moment in time.', [
      { path: 'body.until', message: 'must be a date as YYYY-MM-DD or an ISO 8601 date and time' },
    ]);
  }
  return new Date(ms).toISOString();
}

type FiredTimerView = {
  timer: (typeof TIMER_NAMES)[number];
  instalment: number;
  dueDate: string;
  scheduledAt: string;
  effect: (typeof TIMER_EFFECTS)[number];
  events: string[];
  debtStatus: string;
  planStatus: string | null;
};

/** The end of a grace period defaults the plan (DECISIONS.md §3): its event, then `debt.updated`; a due date nothing. */
function describe(fired: FiredTimer): FiredTimerView {
  const defaulted = fired.purpose === 'gracePeriodEnds';
  return {
    timer: defaulted ? 'GracePeriodEnds' : 'InstalmentDue',
    instalment: fired.instalmentIndex + 1,
    dueDate: fired.dueDate,
    scheduledAt: fired.at,
    effect: defaulted ? 'PlanDefaulted' : 'InstalmentLate',
    events: defaulted ? [...TRANSITIONS.instalmentMissed.events, 'debt.updated'] : [],
    debtStatus: fired.status,
    planStatus: fired.planStatus,
  };
}

/** The answer: the debt as GET returns it, plus what fired. */
export function advanceAnswer(outcome: AdvanceOutcome): Record<string, unknown> {
  return { ...outcome.debt, fired: outcome.fired.map(describe) };
}
