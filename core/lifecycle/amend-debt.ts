/**
 * `PATCH /v1/debts/{id}` (DECISIONS.md §2-§3): the field changes are the API's to write, but a recall
 * (`status: "Closed"`) is a transition, so it goes to the debt's workflow, which owns the state. The whole request
 * is checked first, so a request refused for any field recalls nothing. A recall takes the request's other field
 * changes with it: the workflow's activity writes both in one transaction with one `debt.updated`,
 * never the recall first and the fields after it. Recalling a debt that is already `Closed` is not a change: the
 * workflow is not asked again, and the fields alone are written.
 */
import { checkDebtPatch, updateDebt, type DebtPatch } from '../debts/debt-updates';
import { findDebtRow, type Debt, type DebtRow } from '../debts/debts';
import type { Db, Trx } from '../platform/db';
import type { RecallFields } from './inputs';
import { patchedMetadata } from '../debts/metadata';
import type { DebtTriggers } from './triggers';

/** The identifiers the request really changes (a field sent with its current value is not a change). */
function changedRecallFields(row: DebtRow, patch: DebtPatch): RecallFields {
  const fields: RecallFields = {};
  if (patch.externalAccountId !== undefined && patch.externalAccountId !== row.external_account_id) {
    fields.externalAccountId = patch.externalAccountId;
  }
  if (patch.clientReference !== undefined && (patch.clientReference || null) !== row.client_reference) {
    fields.clientReference = patch.clientReference;
  }
  if (patchedMetadata(row.metadata, patch.metadata) !== undefined) fields.metadata = patch.metadata;
  return fields;
}

/** How a PATCH reaches the database: the pool for reads, and short transactions of the request's own. */
export interface AmendAccess {
  db: Db;
  transaction: <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;
}

/**
 * No transaction is held across the recall: the request's checks read the row on the pool, and
 * the workflow's activity writes the recall and the fields. `triggers` are the request's (their update id).
 */
export async function amendDebt(
  access: AmendAccess,
  triggers: DebtTriggers,
  organizationId: string,
  id: string,
  patch: DebtPatch,
): Promise<Debt | undefined> {
  const { status, ...fields } = patch;
  const writeFields = () => access.transaction((trx) => updateDebt(trx, organizationId, id, fields));
  if (status === undefined) return writeFields();
  const row = await findDebtRow(access.db, organizationId, id);
  if (!row) return undefined;
  checkDebtPatch(row, patch);
  // The fields as they will meet the recalled debt: a principal can change only while PendingAssignment, so a
  // recall carries at most the client's identifiers (a principal sent unchanged is no change).
  checkDebtPatch({ ...row, status }, fields);
  if (row.status === status) return writeFields();
  return triggers.close(organizationId, id, changedRecallFields(row, patch));
}
