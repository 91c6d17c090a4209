/**
 * `PATCH /v1/debts/{id}` (DECISIONS.md §2-§3): the field changes are the API's to write, but a recall
 * (`status: "Closed"`) is a transition, so it goes to the debt's workflow, which owns the state. The whole request
 * is checked first, so a request refused for any field recalls nothing; the recall then commits in the workflow's
 * activity (with its `debt.updated`), and the other fields are written after it under the row lock. Recalling a debt
 * that is already `Closed` is not a change: the workflow is not asked again.
 */
import { checkDebtPatch, updateDebt, type DebtPatch } from '../debts/debt-updates';
import { findDebtRow, type Debt } from '../debts/debts';
import type { Trx } from '../platform/db';
import type { DebtTriggers } from './triggers';

export async function amendDebt(
  trx: Trx,
  triggers: DebtTriggers,
  organizationId: string,
  id: string,
  patch: DebtPatch,
  requestId?: string,
): Promise<Debt | undefined> {
  const { status, ...fields } = patch;
  if (status === undefined) return updateDebt(trx, organizationId, id, fields);
  const row = await findDebtRow(trx, organizationId, id);
  if (!row) return undefined;
  checkDebtPatch(row, patch);
  checkDebtPatch({ ...row, status }, fields); // the fields as they will meet the recalled debt
  if (row.status !== status) await (requestId ? triggers.forRequest(requestId) : triggers).close(organizationId, id);
  return updateDebt(trx, organizationId, id, fields);
}
