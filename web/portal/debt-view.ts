/** What the portal's pages read of the visit's debt: the debt as the portal shows it, its schedule, its money. */
import { errors } from '../../core/platform/errors';
import {
  readPortalDebt,
  readPortalTransactions,
  type PortalDebt,
  type PortalTransaction,
} from '../../core/portal/debt-reads';
import type { PortalSession } from '../../core/portal/portal-sessions';
import type { Instalment } from '../../core/lifecycle/model';
import type { PortalContext } from './portal-context';

export interface DebtView {
  debt: PortalDebt;
  /** The outstanding balance as an exact decimal string. */
  outstanding: string;
  /** The running or last plan's instalments; empty without a plan. */
  schedule: Instalment[];
  /** The most recent first; empty when the page did not ask for them. */
  transactions: PortalTransaction[];
}

/** The visit's debt; with its transactions for the pages that list them (the debt's own page). */
export async function loadDebtView(
  c: PortalContext,
  session: PortalSession,
  options: { transactions?: boolean } = {},
): Promise<DebtView> {
  const { db } = c.deps;
  const { organizationId, debtId } = session;
  const debt = await readPortalDebt(db, organizationId, debtId);
  if (!debt) throw errors.notFound('debt');
  const transactions = options.transactions ? await readPortalTransactions(db, organizationId, debtId) : [];
  return { debt, outstanding: debt.outstandingPrincipal, schedule: debt.schedule, transactions };
}
