/**
 * The one way the debt lifecycle writes a debt (DECISIONS.md §3, §4): a change the `debt-<id>` workflow asks for is
 * applied in ONE database transaction with its events (the outbox), under the debt's row lock.
 *
 * `lifecycle_version` counts applied changes. The workflow passes the version it last saw: a row already at
 * `expectedVersion + 1` means this is a retried activity whose first try committed, so nothing is written again
 * (`duplicate`); any other difference means the workflow and the row disagree, which no retry mends (an error).
 * Refusals and duplicates write nothing. Events: the change's specific event first, then `debt.updated` whenever
 * the debt as the API returns it changed.
 */
import type { Db, Trx } from '../platform/db';
import { toDebt, type Debt } from '../debts/debts';
import { recordEvent } from '../events/outbox';
import { forRequest, requestIdOfUpdate } from '../events/request-cause';
import { decideChange } from './change-decisions';
import type { ChangeEffect, DebtColumnChanges } from './change-effects';
import { LifecycleIntegrityError } from './errors';
import { lifecycleColumns, lockLifecycleRow, toLifecycleState, type LifecycleRow } from './lifecycle-row';
import { LIFECYCLE_FAILURE_TYPES, type ApplyChangeInput, type ApplyChangeResult } from './model';
import { todayUtc } from './plan-schedule';
import { debtUpdatedData } from '../debts/previous-attributes';

export { loadLifecycleState } from './lifecycle-row';
export { recordLifecycleInput } from './inputs';

export interface ApplyChangeOptions {
  /** The clock for validating a plan's first due date; the real one unless a test says otherwise. */
  now?: Date;
}

async function lockedRow(trx: Trx, input: ApplyChangeInput): Promise<LifecycleRow> {
  const row = await lockLifecycleRow(trx, input.debtId);
  if (!row) {
    throw new LifecycleIntegrityError(LIFECYCLE_FAILURE_TYPES.debtNotFound, `Debt ${input.debtId} does not exist.`);
  }
  return row;
}

function versionMismatch(row: LifecycleRow, input: ApplyChangeInput): LifecycleIntegrityError {
  return new LifecycleIntegrityError(
    LIFECYCLE_FAILURE_TYPES.versionMismatch,
    `Debt ${row.id} is at lifecycle version ${row.lifecycle_version}, but the change "${input.change.kind}" ` +
      `expected ${input.expectedVersion}.`,
  );
}

/** Writes the columns and the next version; `updated_at` moves only when a column the API shows may change. */
async function writeChanges(trx: Trx, row: LifecycleRow, changes: DebtColumnChanges): Promise<LifecycleRow> {
  const touched = Object.keys(changes).length > 0;
  const [updated] = await trx('debts')
    .where({ id: row.id })
    .update({
      ...changes,
      lifecycle_version: row.lifecycle_version + 1,
      ...(touched ? { updated_at: trx.fn.now(3) } : {}),
    })
    .returning<LifecycleRow[]>(lifecycleColumns(trx));
  if (!updated) throw new Error(`debt ${row.id} vanished under its row lock`);
  return updated;
}

function specificEventData(effect: ChangeEffect, debt: Debt): Record<string, unknown> {
  switch (effect.event) {
    case 'plan.activated':
    case 'plan.defaulted':
      return { plan: debt.plan, debt };
    case 'payment.received':
      return { payment: effect.payment, debt };
    default:
      return { debt };
  }
}

async function recordChangeEvents(
  trx: Trx,
  before: LifecycleRow,
  after: LifecycleRow,
  effect: ChangeEffect,
): Promise<void> {
  const debt = toDebt(after);
  if (effect.event) await recordEvent(trx, after.organization_id, effect.event, specificEventData(effect, debt));
  const updated = debtUpdatedData(toDebt(before), debt);
  // Only a change a client can see is a debt.updated (a due date fired with nothing to show is not).
  if (Object.keys(updated.previousAttributes).length > 0) {
    await recordEvent(trx, after.organization_id, 'debt.updated', updated);
  }
}

/** Applies one lifecycle change with its events in one transaction; see the file's comment for the outcomes. */
export async function applyLifecycleChange(
  db: Db,
  input: ApplyChangeInput,
  options: ApplyChangeOptions = {},
): Promise<ApplyChangeResult> {
  return db.transaction(async (unmarked) => {
    const requestId = requestIdOfUpdate(input.updateId);
    const trx = requestId ? forRequest(unmarked, requestId) : unmarked;
    const row = await lockedRow(trx, input);
    if (row.lifecycle_version === input.expectedVersion + 1) {
      return { outcome: 'duplicate', state: toLifecycleState(row) };
    }
    if (row.lifecycle_version !== input.expectedVersion) throw versionMismatch(row, input);

    const today = todayUtc(input.asOf ? new Date(input.asOf) : (options.now ?? new Date()));
    const decision = await decideChange({ trx, row, today }, input.change);
    const state = toLifecycleState(row);
    if (decision.outcome === 'duplicate') return { outcome: 'duplicate', state };
    if (decision.outcome === 'refused') {
      return { outcome: 'refused', state, code: decision.code, detail: decision.detail };
    }
    const updated = await writeChanges(trx, row, decision.effect.changes);
    await recordChangeEvents(trx, row, updated, decision.effect);
    return { outcome: 'applied', state: toLifecycleState(updated) };
  });
}
