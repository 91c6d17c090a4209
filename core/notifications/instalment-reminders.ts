/**
 * Reminders before instalments fall due (docs/notifications.md): REMINDER_LEAD_DAYS days before an instalment's due
 * date, at 00:00 UTC of that day, while its plan is the debt's current, running plan and the instalment is unpaid.
 * A plan's reminder workflow (workflows/instalment-reminders.ts) asks `nextInstalmentReminder` when to wake, sleeps
 * until then, and asks `remindInstalment` to record (and send) the reminder, which checks everything again: a plan
 * paid ahead, defaulted, replaced by a new plan or ended with its debt is reminded of nothing. The workflow's clock
 * (`asOf`) is the business time, as the lifecycle's activities take it.
 */
import type { Db } from '../platform/db';
import { REMINDER_LEAD_DAYS } from './debtor-messages';
import { finishNotification, recordNotifications } from './debtor-notifications';
import { deliverNotification, type DeliveryOutcome, type NotificationSenderDeps } from './notification-sender';
import { currentPlan, DAY_MS, reminderSuppression, unpaid, type ReminderTarget } from './reminder-check';

export type { ReminderTarget } from './reminder-check';

export interface NextReminder {
  instalmentIndex: number;
  dueDate: string;
  /** ISO 8601: 00:00 UTC, REMINDER_LEAD_DAYS days before the due date. */
  remindAt: string;
}

/** When an instalment due on `dueDate` (`YYYY-MM-DD`) is reminded. */
export function reminderTime(dueDate: string): number {
  return Date.parse(`${dueDate}T00:00:00.000Z`) - REMINDER_LEAD_DAYS * DAY_MS;
}

/** The next instalment after `afterIndex` to remind, or null when there is none (the workflow then ends). */
export async function nextInstalmentReminder(
  db: Db,
  target: ReminderTarget & { afterIndex: number },
): Promise<NextReminder | null> {
  const plan = await currentPlan(db, target);
  if (!plan) return null;
  for (let index = target.afterIndex + 1; index < plan.schedule.length; index++) {
    const instalment = plan.schedule[index]!;
    const at = reminderTime(instalment.dueDate);
    // Due within the lead time of the plan's start: the schedule email just told the debtor.
    if (at < plan.activatedAt.getTime() || !unpaid(instalment)) continue;
    return { instalmentIndex: index, dueDate: instalment.dueDate, remindAt: new Date(at).toISOString() };
  }
  return null;
}

/**
 * Records the reminder of one instalment (once: a retried activity finds it recorded) and hands it to the sender,
 * unless the plan or the instalment no longer needs it, which is recorded as a suppression.
 */
export async function remindInstalment(
  deps: NotificationSenderDeps,
  target: ReminderTarget & { instalmentIndex: number; asOf: string },
): Promise<DeliveryOutcome | 'skipped'> {
  // A debt deleted meanwhile (a sandbox reset) has nothing to remind and nowhere to record it.
  const debt = await deps
    .db('debts')
    .where({ organization_id: target.organizationId, id: target.debtId })
    .first<{ id: string } | undefined>('id');
  if (!debt) return 'skipped';
  const [id] = await recordNotifications(deps.db, [
    { ...target, kind: 'instalment_reminder', sourceId: target.planEventId, instalmentIndex: target.instalmentIndex },
  ]);
  const existing =
    id ??
    (
      await deps
        .db('debtor_notifications')
        .where({ source_id: target.planEventId, kind: 'instalment_reminder', instalment_index: target.instalmentIndex })
        .first<{ id: string } | undefined>('id')
    )?.id;
  if (!existing) return 'skipped';
  const reason = await reminderSuppression(deps.db, target, target.asOf);
  if (reason) {
    const taken = await deps
      .db('debtor_notifications')
      .where({ id: existing, status: 'pending' })
      .update({ status: 'sending', claimed_at: new Date() });
    if (taken > 0) await finishNotification(deps.db, existing, { status: 'suppressed', reason });
    return 'skipped';
  }
  const outcome = await deliverNotification(deps, existing);
  // Left for another try: failing the activity lets Temporal retry it with backoff.
  if (outcome === 'retry') throw new Error('the reminder could not be sent yet');
  return outcome;
}
