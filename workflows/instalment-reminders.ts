/**
 * A plan's reminders (docs/notifications.md): `instalment-reminders-<planEventId>` on the `lifecycle` task queue,
 * started by the notifications consumer when the plan's `plan.activated` event commits. For each instalment it asks
 * when the reminder is due (REMINDER_LEAD_DAYS before the due date), sleeps until then on a durable timer, and asks
 * the activity to send it, which checks again that the plan still runs and the instalment is unpaid. It ends when the
 * plan has nothing left to remind (paid, defaulted, replaced, or its debt ended). Input and history carry ids, indexes
 * and dates only.
 */
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { DebtorNotificationActivities, InstalmentRemindersInput } from '../activities/debtor-notifications';

const { nextInstalmentReminder, remindInstalment } = proxyActivities<DebtorNotificationActivities>({
  startToCloseTimeout: '1 minute',
  // An SMTP relay or a database outage is waited out; a reminder late by the retry is still before its due date.
  retry: { initialInterval: '10 seconds', maximumInterval: '10 minutes' },
});

/** Past this many events a run hands over to a new one (a plan may have 520 instalments). */
const HISTORY_LIMIT = 1_000;

/** Returns how many reminders it sent (or, in the sandbox, recorded); one found unneeded at its time is not counted. */
export async function instalmentRemindersWorkflow(input: InstalmentRemindersInput): Promise<number> {
  const { organizationId, debtId, planEventId } = input;
  let afterIndex = input.afterIndex ?? -1;
  let reminded = 0;
  for (;;) {
    const next = await nextInstalmentReminder({ organizationId, debtId, planEventId, afterIndex });
    if (!next) return reminded;
    const wait = Date.parse(next.remindAt) - Date.now();
    if (wait > 0) await sleep(wait);
    const outcome = await remindInstalment({
      organizationId,
      debtId,
      planEventId,
      instalmentIndex: next.instalmentIndex,
      asOf: new Date().toISOString(), // workflow time: the clock the due dates are judged by
    });
    afterIndex = next.instalmentIndex;
    if (outcome !== 'skipped') reminded++;
    if (workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof instalmentRemindersWorkflow>({ ...input, afterIndex });
    }
  }
}
