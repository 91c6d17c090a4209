/**
 * The bounds an organisation puts on the plans its debtors may agree in the portal: at most so
 * many instalments, only some frequencies, no instalment below a minimum, a first due date within so many days. No
 * row means the defaults below (docs/portal.md). The lifecycle's own rules (core/lifecycle/plan-schedule.ts) still
 * apply on top: these only narrow them.
 */
import { PLAN_FREQUENCIES, type PlanFrequency } from '../debts/debt-status';
import { compareAmounts, divideDown, normalizeAmount } from '../debts/money';
import type { PlanRequest } from '../lifecycle/model';
import { MAX_FIRST_DUE_DAYS, MAX_INSTALMENTS, validatePlanRequest } from '../lifecycle/plan-schedule';
import type { Db } from '../platform/db';
import Decimal from 'decimal.js';
import { minorUnits } from '../debts/currencies';

export interface PlanRules {
  maxInstalments: number;
  frequencies: PlanFrequency[];
  /** In the debt's currency, a decimal string; "0" means no minimum. */
  minInstalmentAmount: string;
  /** The first due date may be today or up to this many days later. */
  firstDueWithinDays: number;
}

export const DEFAULT_PLAN_RULES: Readonly<PlanRules> = Object.freeze({
  maxInstalments: 12,
  frequencies: [...PLAN_FREQUENCIES],
  minInstalmentAmount: '20',
  firstDueWithinDays: 30,
});

interface PlanRulesRow {
  max_instalments: number;
  frequencies: PlanFrequency[];
  min_instalment_amount: string;
  first_due_within_days: number;
}

export async function getPlanRules(db: Db, organizationId: string): Promise<PlanRules> {
  const row = await db('portal_plan_rules')
    .where({ organization_id: organizationId })
    .first<PlanRulesRow | undefined>(
      'max_instalments',
      'frequencies',
      'min_instalment_amount',
      'first_due_within_days',
    );
  if (!row) return { ...DEFAULT_PLAN_RULES, frequencies: [...DEFAULT_PLAN_RULES.frequencies] };
  return {
    maxInstalments: row.max_instalments,
    // Kept in the lifecycle's order whatever order they were saved in.
    frequencies: PLAN_FREQUENCIES.filter((f) => row.frequencies.includes(f)),
    minInstalmentAmount: normalizeAmount(row.min_instalment_amount),
    firstDueWithinDays: row.first_due_within_days,
  };
}

/** Why `rules` cannot be saved, or null. The limits are the lifecycle's own. */
export function planRulesProblem(rules: PlanRules): string | null {
  if (!Number.isInteger(rules.maxInstalments) || rules.maxInstalments < 1 || rules.maxInstalments > MAX_INSTALMENTS) {
    return `The most instalments must be a whole number from 1 to ${MAX_INSTALMENTS}.`;
  }
  if (rules.frequencies.length === 0) return 'Allow at least one frequency.';
  if (!/^\d{1,13}(\.\d{1,4})?$/.test(rules.minInstalmentAmount)) {
    return 'The minimum instalment must be an amount such as 20 or 12.50.';
  }
  const days = rules.firstDueWithinDays;
  if (!Number.isInteger(days) || days < 0 || days > MAX_FIRST_DUE_DAYS) {
    return `The first payment window must be a whole number of days from 0 to ${MAX_FIRST_DUE_DAYS}.`;
  }
  return null;
}

export async function savePlanRules(db: Db, organizationId: string, rules: PlanRules): Promise<void> {
  const row = {
    max_instalments: rules.maxInstalments,
    frequencies: rules.frequencies,
    min_instalment_amount: rules.minInstalmentAmount,
    first_due_within_days: rules.firstDueWithinDays,
    updated_at: new Date(),
  };
  await db('portal_plan_rules')
    .insert({ organization_id: organizationId, ...row })
    .onConflict('organization_id')
    .merge(row);
}

/** The most instalments a debtor may choose for `outstanding`: the rule's cap, lowered so none falls below the minimum. */
export function maxInstalmentsFor(rules: PlanRules, outstanding: string, currency: string): number {
  let count = rules.maxInstalments;
  while (count > 1 && compareAmounts(divideDown(outstanding, count, currency), rules.minInstalmentAmount) < 0) count--;
  return count;
}

/** The last first-due date allowed (`YYYY-MM-DD`) from `today`. */
export function lastFirstDueDate(rules: PlanRules, today: string): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) + rules.firstDueWithinDays * 86_400_000).toISOString().slice(0, 10);
}

/** Why the organisation's rules refuse the request (plain words for the debtor), or null when they allow it. */
export function planRulesRefusal(
  rules: PlanRules,
  outstanding: string,
  currency: string,
  request: PlanRequest,
  today: string,
): string | null {
  const basic = validatePlanRequest(outstanding, currency, request, today);
  if (basic) return basic.detail;
  if (!rules.frequencies.includes(request.frequency)) {
    return `Choose how often you pay from: ${rules.frequencies.join(', ').toLowerCase()}.`;
  }
  const most = maxInstalmentsFor(rules, outstanding, currency);
  if (request.instalmentCount > most) {
    return (
      `You can split this balance into at most ${most} instalment${most === 1 ? '' : 's'}` +
      (compareAmounts(rules.minInstalmentAmount, '0') > 0
        ? ` (each at least ${new Decimal(rules.minInstalmentAmount).toFixed(minorUnits(currency))} ${currency}).`
        : '.')
    );
  }
  const last = lastFirstDueDate(rules, today);
  if (request.firstDueDate > last) return `The first payment must be on or before ${last}.`;
  return null;
}
