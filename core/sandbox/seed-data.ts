/**
 * The sandbox's seeded dataset (DECISIONS.md §6), as data: 5 debtors and 8 AUD debts, one in each lifecycle state,
 * with the payments that explain each balance. Times are days before the seed's moment (`asOf`), so a fresh tenant
 * always looks like a portfolio in motion: the running plan's next instalment is due in 10 days, the defaulted one
 * went into arrears 9 days ago. Contact data is fictional (`@example.com`, a domain reserved for examples).
 */
import type { DebtStatus, DisputeOutcome, PlanFrequency, PlanStatus } from '../debts/debt-status';

export interface SeedDebtor {
  referenceId: string;
  firstName: string;
  lastName: string;
  email: string;
  /** Verification data, so the portal's second factor shows each of its forms (docs/sandbox.md). */
  dateOfBirth?: string;
  postcode?: string;
}

export interface SeedPayment {
  amount: string;
  daysAgo: number;
  /** A declined card: recorded as a Failed payment, which moves no balance. */
  failed?: boolean;
}

export interface SeedPlan {
  frequency: PlanFrequency;
  instalmentCount: number;
  /** The first instalment's due date, in days from `asOf` (negative: in the past). */
  firstDueInDays: number;
  status: PlanStatus;
}

export interface SeedDebt {
  externalAccountId: string;
  debtorReferenceId: string;
  originalPrincipal: string;
  status: DebtStatus;
  raisedDaysAgo: number;
  /** When the row last changed (its `updatedAt`). */
  changedDaysAgo: number;
  payments: SeedPayment[];
  disputeReason?: string;
  /** A resolved dispute's outcome, resolved when the row last changed. */
  disputeOutcome?: DisputeOutcome;
  /** The plan over the whole original principal, agreed before any payment. */
  plan?: SeedPlan;
}

export const SEED_CURRENCY = 'AUD';

// Each form of the portal's second factor: both (Ava), a date of birth only (Ben), a postcode only (Carla), neither.
// prettier-ignore
export const SEED_DEBTORS: readonly SeedDebtor[] = [
  { referenceId: 'DBR-001', firstName: 'Ava', lastName: 'Harris', email: 'ava.harris@example.com',
    dateOfBirth: '1985-04-12', postcode: '3000' },
  { referenceId: 'DBR-002', firstName: 'Ben', lastName: 'Singh', email: 'ben.singh@example.com',
    dateOfBirth: '1979-11-03' },
  { referenceId: 'DBR-003', firstName: 'Carla', lastName: 'Tan', email: 'carla.tan@example.com', postcode: '2000' },
  { referenceId: 'DBR-004', firstName: 'Dan', lastName: 'Murphy', email: 'dan.murphy@example.com' },
  { referenceId: 'DBR-005', firstName: 'Ella', lastName: 'Nguyen', email: 'ella.nguyen@example.com' },
];

// prettier-ignore
export const SEED_DEBTS: readonly SeedDebt[] = [
  // Raised two days ago; the debtor has not engaged yet.
  { externalAccountId: 'ACCT-0001', debtorReferenceId: 'DBR-001', originalPrincipal: '1250', status: 'PendingAssignment',
    raisedDaysAgo: 2, changedDaysAgo: 2, payments: [] },
  // A fortnightly plan of 12 × 400, two instalments paid on their due dates; the third is due in 10 days.
  { externalAccountId: 'ACCT-0002', debtorReferenceId: 'DBR-002', originalPrincipal: '4800', status: 'Active',
    raisedDaysAgo: 40, changedDaysAgo: 4, payments: [{ amount: '400', daysAgo: 18 }, { amount: '400', daysAgo: 4 }],
    plan: { frequency: 'Fortnightly', instalmentCount: 12, firstDueInDays: -18, status: 'Active' } },
  // Paid in full in two payments.
  { externalAccountId: 'ACCT-0003', debtorReferenceId: 'DBR-003', originalPrincipal: '320.50', status: 'Settled',
    raisedDaysAgo: 60, changedDaysAgo: 30, payments: [{ amount: '200', daysAgo: 45 }, { amount: '120.50', daysAgo: 30 }] },
  // A fortnightly plan of 5 × 2550.15: the first instalment paid, the second unpaid when its grace period ended.
  { externalAccountId: 'ACCT-0004', debtorReferenceId: 'DBR-004', originalPrincipal: '12750.75', status: 'InArrears',
    raisedDaysAgo: 50, changedDaysAgo: 9, payments: [{ amount: '2550.15', daysAgo: 30 }],
    plan: { frequency: 'Fortnightly', instalmentCount: 5, firstDueInDays: -30, status: 'Defaulted' } },
  // Disputed by the debtor before any payment.
  { externalAccountId: 'ACCT-0005', debtorReferenceId: 'DBR-005', originalPrincipal: '990', status: 'Disputed',
    raisedDaysAgo: 20, changedDaysAgo: 6, payments: [],
    disputeReason: 'I closed this account last year and do not owe this amount.' },
  // Accepted; a first payment was declined, the retry the next day went through.
  { externalAccountId: 'ACCT-0006', debtorReferenceId: 'DBR-001', originalPrincipal: '6200', status: 'Accepted',
    raisedDaysAgo: 30, changedDaysAgo: 11,
    payments: [{ amount: '500', daysAgo: 12, failed: true }, { amount: '500', daysAgo: 11 }] },
  // A dispute upheld: written off, nothing paid.
  { externalAccountId: 'ACCT-0007', debtorReferenceId: 'DBR-002', originalPrincipal: '75', status: 'WrittenOff',
    raisedDaysAgo: 90, changedDaysAgo: 70, payments: [], disputeReason: 'This charge was refunded by the merchant.',
    disputeOutcome: 'Upheld' },
  // Recalled by the client.
  { externalAccountId: 'ACCT-0008', debtorReferenceId: 'DBR-003', originalPrincipal: '2400', status: 'Closed',
    raisedDaysAgo: 120, changedDaysAgo: 100, payments: [] },
];
