/**
 * `debt.updated`'s `previousAttributes`, as Stripe's `previous_attributes`: the fields the change
 * changed, with their values before it, in the API's own names and shapes (a changed plan or metadata as the whole
 * object it was). `updatedAt` is left out: it moves with every change.
 */
import type { Debt } from './debts';

export type PreviousAttributes = Partial<Omit<Debt, 'updatedAt'>>;

export function previousAttributes(before: Debt, after: Debt): PreviousAttributes {
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(before) as (keyof Debt)[]) {
    if (key !== 'updatedAt' && JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
  }
  return changed;
}

/** The `debt.updated` data: the debt after the change and what the change replaced. */
export function debtUpdatedData(before: Debt, after: Debt): { debt: Debt; previousAttributes: PreviousAttributes } {
  return { debt: after, previousAttributes: previousAttributes(before, after) };
}
