/**
 * What the debtor portal's pages read of the visit's debt, its creditor and its money: every page of a
 * visit asks, so each read is one named prepared statement written as PostgreSQL text (core/platform/prepared.ts,
 * `queryNamed`) that selects only what the pages show, and its rows are used as they come (amounts stay decimal
 * strings, dates `YYYY-MM-DD` in UTC) instead of being built by knex and turned into the API's `Debt` and
 * `Transaction`, which cost the debt page about a fifth of its CPU (docs/operators/performance.md, "Debtor portal").
 * Every statement names the organisation: another tenant's debt is not found.
 */
import type { DebtStatus, PlanFrequency, PlanStatus } from '../debts/debt-status';
import type { TransactionStatus, TransactionType } from '../debts/transactions';
import type { Instalment } from '../lifecycle/model';
import type { Db } from '../platform/db';
import { isUuid } from '../platform/ids';
import { queryNamed } from '../platform/prepared';

/** The debt as the portal shows it; amounts as exact decimal strings without padding (`800.25`, `1200`). */
export interface PortalDebt {
  status: DebtStatus;
  currency: string;
  originalPrincipal: string;
  outstandingPrincipal: string;
  externalAccountId: string;
  disputeReason: string | null;
  plan: PortalPlan | null;
  /** The running or last plan's instalments; empty without a plan status. */
  schedule: Instalment[];
}

export interface PortalPlan {
  status: PlanStatus;
  frequency: PlanFrequency;
  instalmentCount: number;
  instalmentsPaid: number;
  /** `YYYY-MM-DD`, or null once nothing is due. */
  nextDueDate: string | null;
}

/** A line of the debt's "Payments and changes". */
export interface PortalTransaction {
  type: TransactionType;
  status: TransactionStatus;
  amount: string;
  currency: string;
  /** The day it was recorded, `YYYY-MM-DD` in UTC. */
  day: string;
}

/** The most recent transactions a page lists. */
export const PORTAL_TRANSACTIONS_SHOWN = 50;

// The statements' texts, exported for the bench's bare route (test/bench/bare-portal.ts), which sends the same.
export const PORTAL_DEBT_SQL = `select status, currency, trim_scale(original_principal)::text as original_principal,
  trim_scale(outstanding_principal)::text as outstanding_principal, external_account_id,
  dispute_reason, plan_status, plan_frequency, plan_instalment_amount is not null as plan_has_amount,
  plan_instalment_count, plan_instalments_paid,
  to_char(plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date, plan_schedule
  from debts where id = $1 and organization_id = $2`;

export const PORTAL_TRANSACTIONS_SQL = `select type, status, amount, currency,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day
  from transactions where organization_id = $1 and debt_id = $2
  order by created_at desc, id desc limit ${PORTAL_TRANSACTIONS_SHOWN}`;

export const CREDITOR_NAME_SQL = `select name from organizations where id = $1`;

/** The debt statement's row, as `pg` gives it. */
export interface PortalDebtRow {
  status: DebtStatus;
  currency: string;
  original_principal: string;
  outstanding_principal: string;
  external_account_id: string;
  dispute_reason: string | null;
  plan_status: PlanStatus | null;
  plan_frequency: PlanFrequency | null;
  plan_has_amount: boolean;
  plan_instalment_count: number | null;
  plan_instalments_paid: number | null;
  plan_next_due_date: string | null;
  plan_schedule: Instalment[] | null;
}

/** The organisation's debt, or undefined (no such debt, or another organisation's). */
export async function readPortalDebt(db: Db, organizationId: string, debtId: string): Promise<PortalDebt | undefined> {
  if (!isUuid(debtId)) return undefined;
  const [row] = await queryNamed<PortalDebtRow>(db, PORTAL_DEBT_SQL, [debtId, organizationId]);
  return row && toPortalDebt(row);
}

/** The statement's row as the debt the pages show. */
export function toPortalDebt(row: PortalDebtRow): PortalDebt {
  const plan: PortalPlan | null =
    // As the API's `Debt.plan` (core/debts/debts.ts): no plan without a status, a frequency and an amount.
    row.plan_status === null || row.plan_frequency === null || !row.plan_has_amount
      ? null
      : {
          status: row.plan_status,
          frequency: row.plan_frequency,
          instalmentCount: row.plan_instalment_count ?? 0,
          instalmentsPaid: row.plan_instalments_paid ?? 0,
          nextDueDate: row.plan_next_due_date,
        };
  return {
    status: row.status,
    currency: row.currency,
    originalPrincipal: row.original_principal,
    outstandingPrincipal: row.outstanding_principal,
    externalAccountId: row.external_account_id,
    disputeReason: row.dispute_reason,
    plan,
    schedule: row.plan_status ? (row.plan_schedule ?? []) : [],
  };
}

/** The debt's most recent transactions, newest first (`PORTAL_TRANSACTIONS_SHOWN` at most). */
export function readPortalTransactions(db: Db, organizationId: string, debtId: string): Promise<PortalTransaction[]> {
  return queryNamed<PortalTransaction>(db, PORTAL_TRANSACTIONS_SQL, [organizationId, debtId]);
}

/** The organisation's name: the creditor every page of a verified visit names. */
export async function readCreditorName(db: Db, organizationId: string): Promise<string | undefined> {
  const [row] = await queryNamed<{ name: string }>(db, CREDITOR_NAME_SQL, [organizationId]);
  return row?.name;
}
