/**
 * Whether an instalment's reminder may still go, asked when it is recorded and again before every attempt to send it
 * (a retry may come after the instalment was paid, or its plan replaced or defaulted): the plan its event activated
 * must still be the debt's running plan, and the instalment unpaid.
 */
import type { Instalment } from '../lifecycle/model';
import { compareAmounts } from '../debts/money';
import type { Db } from '../platform/db';
import type { SuppressionReason } from './debtor-notifications';

export const DAY_MS = 86_400_000;

export interface ReminderTarget {
  organizationId: string;
  debtId: string;
  planEventId: string;
}

/** The end of the due date, UTC: after it a reminder "before" the instalment is too late. */
function dueAt(dueDate: string): number {
  return Date.parse(`${dueDate}T00:00:00.000Z`) + DAY_MS;
}

export interface CurrentPlan {
  schedule: Instalment[];
  /** When the plan started: instalments whose reminder time came before it were in the schedule email. */
  activatedAt: Date;
}

/** The plan the event activated, if it is still the debt's running plan; null otherwise. */
export async function currentPlan(db: Db, target: ReminderTarget): Promise<CurrentPlan | null> {
  const debt = await db('debts')
    .where({ organization_id: target.organizationId, id: target.debtId })
    .first<{ status: string; plan_status: string | null; plan_schedule: Instalment[] | null } | undefined>(
      'status',
      'plan_status',
      'plan_schedule',
    );
  if (!debt || debt.status !== 'Active' || debt.plan_status !== 'Active' || !debt.plan_schedule) return null;
  const latest = await db('events')
    .where({ organization_id: target.organizationId, type: 'plan.activated' })
    .whereRaw(`data -> 'debt' ->> 'id' = ?`, [target.debtId])
    .orderBy([
      { column: 'txid', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ])
    .first<{ id: string; created_at: Date } | undefined>('id', 'created_at');
  if (latest?.id !== target.planEventId) return null;
  return { schedule: debt.plan_schedule, activatedAt: latest.created_at };
}

export const unpaid = (i: Instalment) => compareAmounts(i.paid, i.amount) < 0;

/**
 * Why the reminder of instalment `instalmentIndex` must not go now, or null when it may. With `asOf` (the business
 * time of the workflow that records it), a reminder after the due date is too late as well.
 */
export async function reminderSuppression(
  db: Db,
  target: ReminderTarget & { instalmentIndex: number },
  asOf?: string,
): Promise<SuppressionReason | null> {
  const plan = await currentPlan(db, target);
  const instalment = plan?.schedule[target.instalmentIndex];
  if (!plan || !instalment) return 'plan_not_current';
  if (!unpaid(instalment)) return 'paid';
  return asOf !== undefined && Date.parse(asOf) >= dueAt(instalment.dueDate) ? 'too_late' : null;
}
