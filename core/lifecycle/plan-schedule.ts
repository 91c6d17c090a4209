/**
 * Instalment plans (DECISIONS.md §3), pure: the schedule a `PlanRequest` makes of an
 * outstanding balance, its validation, and how a payment is allocated to it. Amounts are exact decimal strings.
 *
 * Every instalment is floor(outstanding / count) in the currency's minor units and the last absorbs the remainder,
 * so the instalments always sum to the outstanding balance exactly. Due dates are calendar dates (`YYYY-MM-DD`):
 * every 7 days (Weekly), 14 (Fortnightly), or on the first due date's day of each month (Monthly), clamped to the
 * month's last day (31 Jan → 28/29 Feb → 31 Mar).
 */
import { PLAN_FREQUENCIES, type PlanFrequency } from '../debts/debt-status';
import {
  addAmounts,
  compareAmounts,
  divideDown,
  isPositiveAmount,
  minAmount,
  minorUnitAmount,
  multiplyAmount,
  normalizeAmount,
  subtractAmounts,
} from '../debts/money';
import type { Instalment, PlanRequest } from './model';

export const MAX_INSTALMENTS = 520;
/** How far ahead the first due date may be. */
export const MAX_FIRST_DUE_DAYS = 366;

const DAY_MS = 86_400_000;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A plan refused as the API would refuse the request. */
export interface PlanRefusal {
  code: 'invalid_request';
  detail: string;
}

export type PlanScheduleResult = { ok: true; instalments: Instalment[] } | { ok: false; refusal: PlanRefusal };

/** Today's calendar date in UTC. */
export function todayUtc(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Milliseconds since the epoch of a real calendar date, or null for text that is not one (e.g. 2026-02-30). */
function parseDate(text: string): number | null {
  const match = DATE_TEXT.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  return formatDate(ms) === text ? ms : null;
}

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `months` calendar months after `first`, on `first`'s day of month clamped to that month's last day. */
function addMonthsClamped(first: number, months: number): number {
  const start = new Date(first);
  const monthIndex = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  return Date.UTC(year, month, Math.min(start.getUTCDate(), daysInMonth(year, month)));
}

/** The due dates of `count` instalments from `firstDueDate` (a valid `YYYY-MM-DD`). */
export function dueDates(firstDueDate: string, frequency: PlanFrequency, count: number): string[] {
  const first = parseDate(firstDueDate);
  if (first === null) throw new Error(`not a calendar date: ${firstDueDate}`);
  return Array.from({ length: count }, (_, i) => {
    if (frequency === 'Monthly') return formatDate(addMonthsClamped(first, i));
    return formatDate(first + i * (frequency === 'Weekly' ? 7 : 14) * DAY_MS);
  });
}

function refuse(detail: string): PlanRefusal {
  return { code: 'invalid_request', detail };
}

/** Why the request cannot make a plan of `outstanding`, or null when it can. `today` is `YYYY-MM-DD` (UTC). */
export function validatePlanRequest(
  outstanding: string,
  currency: string,
  request: PlanRequest,
  today: string,
): PlanRefusal | null {
  const { instalmentCount: count, frequency, firstDueDate } = request;
  if (!Number.isInteger(count) || count < 1 || count > MAX_INSTALMENTS) {
    return refuse(`instalmentCount must be a whole number from 1 to ${MAX_INSTALMENTS}.`);
  }
  if (!(PLAN_FREQUENCIES as readonly string[]).includes(frequency)) {
    return refuse(`frequency must be one of ${PLAN_FREQUENCIES.join(', ')}.`);
  }
  const first = parseDate(firstDueDate);
  const todayMs = parseDate(today);
  if (first === null || todayMs === null) return refuse('firstDueDate must be a calendar date, YYYY-MM-DD.');
  if (first < todayMs) return refuse(`firstDueDate must not be before today (${today}, UTC).`);
  if (first > todayMs + MAX_FIRST_DUE_DAYS * DAY_MS) {
    return refuse(`firstDueDate must be at most ${MAX_FIRST_DUE_DAYS} days after today (${today}, UTC).`);
  }
  if (!isPositiveAmount(outstanding)) return refuse('There is no outstanding balance to plan.');
  if (compareAmounts(divideDown(outstanding, count, currency), minorUnitAmount(currency)) < 0) {
    return refuse(
      `${count} instalments of an outstanding ${normalizeAmount(outstanding)} ${currency} would be less than ` +
        `${minorUnitAmount(currency)} ${currency} each; choose fewer instalments.`,
    );
  }
  return null;
}

/** The instalments of a valid request (see `validatePlanRequest`): equal, the last absorbing the remainder. */
export function buildPlanSchedule(outstanding: string, currency: string, request: PlanRequest): Instalment[] {
  const count = request.instalmentCount;
  const regular = divideDown(outstanding, count, currency);
  const last = subtractAmounts(outstanding, multiplyAmount(regular, count - 1));
  return dueDates(request.firstDueDate, request.frequency, count).map((dueDate, i) => ({
    dueDate,
    amount: i === count - 1 ? last : regular,
    paid: '0',
  }));
}

/** Validates, then builds: the one entry point for agreeing a plan. */
export function schedulePlan(
  outstanding: string,
  currency: string,
  request: PlanRequest,
  today: string,
): PlanScheduleResult {
  const refusal = validatePlanRequest(outstanding, currency, request, today);
  if (refusal) return { ok: false, refusal };
  return { ok: true, instalments: buildPlanSchedule(outstanding, currency, request) };
}

function isPaidInFull(instalment: Instalment): boolean {
  return compareAmounts(instalment.paid, instalment.amount) >= 0;
}

/**
 * Allocates a payment to the oldest unpaid instalment first, overflowing to later ones. What no instalment can take
 * is `unallocated` (callers refuse payments above the balance, so it is "0" in practice).
 */
export function allocatePayment(
  instalments: readonly Instalment[],
  amount: string,
): { instalments: Instalment[]; unallocated: string } {
  let left = normalizeAmount(amount);
  const allocated = instalments.map((instalment) => {
    const owed = subtractAmounts(instalment.amount, instalment.paid);
    if (!isPositiveAmount(left) || !isPositiveAmount(owed)) return { ...instalment };
    const share = minAmount(owed, left);
    left = subtractAmounts(left, share);
    return { ...instalment, paid: addAmounts(instalment.paid, share) };
  });
  return { instalments: allocated, unallocated: left };
}

/** The plan's summary as the API shows it: instalments paid in full, and the due date of the first that is not. */
export function planProgress(instalments: readonly Instalment[]): {
  instalmentsPaid: number;
  nextDueDate: string | null;
} {
  const next = instalments[firstUnpaidIndex(instalments)];
  return { instalmentsPaid: instalments.filter(isPaidInFull).length, nextDueDate: next?.dueDate ?? null };
}

/** Index of the oldest instalment not paid in full; -1 when every one is. */
export function firstUnpaidIndex(instalments: readonly Instalment[]): number {
  return instalments.findIndex((instalment) => !isPaidInFull(instalment));
}

/** What is still owed on the schedule. */
export function scheduleBalance(instalments: readonly Instalment[]): string {
  return addAmounts(...instalments.map((i) => subtractAmounts(i.amount, i.paid)));
}

/** True when the instalment at `index` exists and is paid in full. */
export function isInstalmentPaid(instalments: readonly Instalment[], index: number): boolean {
  const instalment = instalments[index];
  return instalment !== undefined && isPaidInFull(instalment);
}
