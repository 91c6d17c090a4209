/**
 * The vocabulary of a lifecycle change's decision: the columns it writes, the specific event it emits, or why it is
 * refused. Shared by change-decisions.ts, payment-change.ts and apply-change.ts.
 */
import type { Knex } from 'knex';
import type { Trx } from '../platform/db';
import type { Transaction } from '../debts/transactions';
import type { LifecycleRow } from './lifecycle-row';

/** The debt columns a lifecycle change may write; `plan_schedule` as JSON text (pg would send an array as ARRAY). */
export type DebtColumnChanges = Partial<
  Pick<
    LifecycleRow,
    | 'status'
    | 'external_account_id'
    | 'client_reference'
    | 'dispute_reason'
    | 'dispute_outcome'
    | 'outstanding_principal'
    | 'plan_status'
    | 'plan_instalment_amount'
    | 'plan_frequency'
    | 'plan_instalment_count'
    | 'plan_instalments_paid'
    | 'plan_next_due_date'
  > & {
    plan_schedule: string;
    metadata: string;
    /** Set by the database's clock (`now()`), as `updated_at` is: the two agree. */
    dispute_resolved_at: Knex.Raw | null;
  }
>;

/** The event a change emits before `debt.updated`. */
export type SpecificEvent =
  'debt.accepted' | 'debt.disputed' | 'plan.activated' | 'plan.defaulted' | 'payment.received';

export interface ChangeEffect {
  changes: DebtColumnChanges;
  event?: SpecificEvent;
  /** The recorded transaction, for `payment.received`. */
  payment?: Transaction;
}

export type ChangeDecision =
  | { outcome: 'apply'; effect: ChangeEffect }
  | { outcome: 'duplicate' }
  | { outcome: 'refused'; code: string; detail: string };

export interface DecisionContext {
  trx: Trx;
  row: LifecycleRow;
  /** Today's date in UTC, `YYYY-MM-DD`. */
  today: string;
}

export function refused(code: string, detail: string): ChangeDecision {
  return { outcome: 'refused', code, detail };
}

export function refusedInState(row: LifecycleRow, what: string): ChangeDecision {
  return refused('invalid_state', `${what} is not allowed while the debt is ${row.status}.`);
}

export function apply(changes: DebtColumnChanges, event?: SpecificEvent): ChangeDecision {
  return { outcome: 'apply', effect: { changes, ...(event ? { event } : {}) } };
}
