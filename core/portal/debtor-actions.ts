/**
 * What a debtor may do in the portal in each state of the debt (DECISIONS.md §3): the pages offer only these, and the
 * routes refuse the rest before asking the lifecycle (which has the last word: a refusal of its own is shown too).
 * A terminal debt offers nothing; a disputed one no payment and no plan, until the dispute is resolved.
 */
import { isTerminal, type DebtStatus } from '../debts/debt-status';

export interface DebtorActions {
  accept: boolean;
  dispute: boolean;
  plan: boolean;
  pay: boolean;
  /** Contact preferences and "tell us about your circumstances". */
  talk: boolean;
}

export function debtorActions(status: DebtStatus): DebtorActions {
  if (isTerminal(status)) return { accept: false, dispute: false, plan: false, pay: false, talk: false };
  return {
    accept: status === 'PendingAssignment',
    dispute: status !== 'Disputed',
    plan: status === 'Accepted' || status === 'InArrears',
    pay: status !== 'Disputed',
    talk: true,
  };
}

/** Plain words for each state, as the debtor reads them. */
export const STATUS_WORDS: Record<DebtStatus, string> = {
  PendingAssignment: 'Waiting for you',
  Accepted: 'You have accepted this debt',
  Active: 'Payment plan running',
  InArrears: 'Payment plan behind',
  Disputed: 'You have disputed this debt',
  Settled: 'Paid in full',
  WrittenOff: 'Written off: nothing more to pay',
  Closed: 'Closed by the creditor',
};
