/**
 * The Debts pages' reads that the API has no route for, and the recall. A debt's timeline is its events: the
 * organisation's events whose `data.debt.id` is the debt, in outbox order (index events_by_debt). A recall goes
 * through the lifecycle exactly as `PATCH /v1/debts/{id}` with `status: "Closed"` does (core/lifecycle/amend-debt.ts):
 * the debt's workflow writes the change and its `debt.updated`. That write is the workflow activity's own
 * transaction, which the console cannot join, so the audit entry is recorded once the workflow has answered that
 * the debt is recalled, never for a recall refused or not made. The role check comes first.
 */
import type { DebtTriggers } from '../lifecycle/triggers';
import { amendDebt } from '../lifecycle/amend-debt';
import { findDebtRow, type Debt } from '../debts/debts';
import { forRequest } from '../events/request-cause';
import type { Mode } from '../platform/config';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requireRecall } from './roles';

export const TIMELINE_LIMIT = 500;

export interface DebtEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  requestId: string | null;
}

/** The debt's events, oldest first (at most TIMELINE_LIMIT, the newest of them). */
export async function listDebtEvents(db: Db, organizationId: string, debtId: string): Promise<DebtEvent[]> {
  if (!isUuid(debtId)) return [];
  const rows = await db('events')
    .where({ organization_id: organizationId })
    .whereRaw(`(data -> 'debt' ->> 'id') = ?`, [debtId])
    .orderBy([
      { column: 'txid', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ])
    .limit(TIMELINE_LIMIT)
    .select('id', 'type', 'created_at', 'data', 'request_id');
  return rows.reverse().map((row) => ({
    id: row.id,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    data: row.data,
    requestId: row.request_id,
  }));
}

/** Recalls the debt (status Closed); `requestId` is the console request's id, which the change's events carry. */
export async function recallConsoleDebt(
  deps: { db: Db; triggers: DebtTriggers },
  actor: StaffActor,
  mode: Mode,
  debtId: string,
  requestId: string,
): Promise<Debt> {
  requireRecall(actor.role);
  const { db } = deps;
  const before = await findDebtRow(db, actor.organizationId, debtId);
  if (!before) throw errors.notFound('debt');
  const access = {
    db,
    transaction: <T>(work: (trx: Trx) => Promise<T>) => db.transaction((trx) => work(forRequest(trx, requestId))),
  };
  const debt = await amendDebt(access, deps.triggers.forRequest(requestId), actor.organizationId, debtId, {
    status: 'Closed',
  });
  if (!debt) throw errors.notFound('debt');
  if (before.status !== 'Closed') {
    await recordAudit(db, actor, mode, {
      action: 'debt.recalled',
      target: debt.id,
      details: { previousStatus: before.status, externalAccountId: debt.externalAccountId },
    });
  }
  return debt;
}
