/** What the portal's pages read of the visit's debt: the debt as the API shows it, its plan's schedule, its money. */
import { toDebt, type Debt } from '../../core/debts/debts';
import { listTransactions, type Transaction } from '../../core/debts/transactions';
import { findLifecycleRow } from '../../core/lifecycle/lifecycle-row';
import type { Instalment } from '../../core/lifecycle/model';
import { normalizeAmount } from '../../core/debts/money';
import { errors } from '../../core/platform/errors';
import type { PortalSession } from '../../core/portal/portal-sessions';
import type { PortalContext } from './portal-context';

export interface DebtView {
  debt: Debt;
  /** The outstanding balance as an exact decimal string. */
  outstanding: string;
  /** The running or last plan's instalments; empty without a plan. */
  schedule: Instalment[];
  transactions: Transaction[];
}

export async function loadDebtView(c: PortalContext, session: PortalSession): Promise<DebtView> {
  const { db } = c.deps;
  const row = await findLifecycleRow(db, session.debtId);
  // The session names its organisation: a row of another one is not this visit's (it cannot be, but never show it).
  if (!row || row.organization_id !== session.organizationId) throw errors.notFound('debt');
  const transactions = await listTransactions(db, session.organizationId, {
    debtId: session.debtId,
    page: { limit: 50 },
  });
  return {
    debt: toDebt(row),
    outstanding: normalizeAmount(row.outstanding_principal),
    schedule: row.plan_status ? (row.plan_schedule ?? []) : [],
    transactions: transactions.data,
  };
}
