/**
 * `PATCH /v1/debts/{id}` (DECISIONS.md §2): the client may change `externalAccountId`, `clientReference`,
 * `originalPrincipal` (only while PendingAssignment; the outstanding principal moves by the same amount) and
 * `status`, only to `Closed` from a non-terminal state (an active plan is then cancelled). A field sent with its current value is not a change, so
 * sending a debt back as read is harmless; every real change emits `debt.updated`, and no change emits nothing.
 */
import type { Trx } from '../platform/db';
import { canChangePrincipal, nextStatus, TERMINAL_STATUSES, type DebtStatus } from './debt-status';
import { debtColumns, lockDebtRow, rowAmounts, toDebt, type Debt, type DebtRow } from './debts';
import { ApiError } from '../platform/errors';
import { recordEvent } from '../events/outbox';
import { asOpenAccountConflict, refuseSecondOpenDebt } from './open-accounts';
import { debtUpdatedData } from './previous-attributes';
import { metadataText, patchedMetadata, type MetadataPatch } from './metadata';
import { addAmounts, amountsEqual, isPositiveAmount, parsePrincipal, subtractAmounts } from './money';

export interface DebtPatch {
  externalAccountId?: string;
  /** An empty string clears it. */
  clientReference?: string;
  /** A JSON number, its source text, or a decimal string. */
  originalPrincipal?: unknown;
  status?: DebtStatus;
  /** Merged key by key (core/debts/metadata.ts). */
  metadata?: MetadataPatch;
}

type DebtChanges = Partial<
  Pick<
    DebtRow,
    | 'external_account_id'
    | 'client_reference'
    | 'original_principal'
    | 'outstanding_principal'
    | 'status'
    | 'plan_status'
    | 'plan_next_due_date'
  > & { metadata: string }
>;

const isTerminal = (status: DebtStatus): boolean => TERMINAL_STATUSES.includes(status);

function invalidState(row: DebtRow, what: string): ApiError {
  return new ApiError('invalid_state', `${what} is not allowed while the debt is ${row.status}.`);
}

function principalChanges(row: DebtRow, value: unknown): DebtChanges {
  const next = parsePrincipal(value, row.currency);
  const { original, outstanding } = rowAmounts(row);
  if (amountsEqual(next, original)) return {};
  if (!canChangePrincipal(row.status)) throw invalidState(row, 'Changing originalPrincipal');
  // The outstanding principal follows: whatever was already paid stays paid.
  const nextOutstanding = addAmounts(outstanding, subtractAmounts(next, original));
  if (!isPositiveAmount(nextOutstanding)) {
    throw new ApiError('invalid_principal', 'originalPrincipal must exceed what has already been paid.', {
      errors: [{ path: 'body.originalPrincipal', message: 'must exceed the amount already paid' }],
    });
  }
  return { original_principal: next, outstanding_principal: nextOutstanding };
}

function debtChanges(row: DebtRow, patch: DebtPatch): DebtChanges {
  const changes: DebtChanges = {};
  if (patch.externalAccountId !== undefined) {
    if (patch.externalAccountId.trim() === '') throw new ApiError('missing_external_account_id');
    if (patch.externalAccountId !== row.external_account_id) changes.external_account_id = patch.externalAccountId;
  }
  if (patch.clientReference !== undefined) {
    const next = patch.clientReference === '' ? null : patch.clientReference;
    if (next !== row.client_reference) changes.client_reference = next;
  }
  if (patch.originalPrincipal !== undefined) Object.assign(changes, principalChanges(row, patch.originalPrincipal));
  const metadata = patchedMetadata(row.metadata, patch.metadata);
  if (metadata) changes.metadata = metadataText(metadata);
  if (patch.status !== undefined && patch.status !== row.status) {
    if (patch.status !== 'Closed' || nextStatus(row.status, 'clientCloses') === null) {
      throw invalidState(row, `Moving to ${patch.status}`);
    }
    changes.status = 'Closed';
    // A recalled debt has no running plan: nothing more falls due.
    if (row.plan_status === 'Active') Object.assign(changes, { plan_status: 'Cancelled', plan_next_due_date: null });
  }
  return changes;
}

/**
 * Throws what applying `patch` to `row` would throw (`invalid_state`, `invalid_principal`, …) without writing: a
 * recall is checked this way before the workflow is asked, so a request refused for another field recalls nothing.
 */
export function checkDebtPatch(row: DebtRow, patch: DebtPatch): void {
  debtChanges(row, patch);
}

/**
 * Applies a PATCH under a row lock, with its `debt.updated` event, in the caller's transaction; undefined when the
 * debt is not the organisation's.
 */
export async function updateDebt(
  trx: Trx,
  organizationId: string,
  id: string,
  patch: DebtPatch,
): Promise<Debt | undefined> {
  const row = await lockDebtRow(trx, organizationId, id);
  if (!row) return undefined;
  const changes = debtChanges(row, patch);
  if (Object.keys(changes).length === 0) return toDebt(row);
  if (changes.external_account_id !== undefined && !isTerminal(changes.status ?? row.status)) {
    await refuseSecondOpenDebt(trx, organizationId, changes.external_account_id, id);
  }
  const [updated] = await trx('debts')
    .where({ organization_id: organizationId, id })
    .update({ ...changes, updated_at: trx.fn.now(3) })
    .returning<DebtRow[]>(debtColumns(trx))
    .catch((err: unknown) => {
      throw asOpenAccountConflict(err);
    });
  if (!updated) throw new Error('the locked debt row was not updated');
  const debt = toDebt(updated);
  await recordEvent(trx, organizationId, 'debt.updated', debtUpdatedData(toDebt(row), debt));
  return debt;
}
