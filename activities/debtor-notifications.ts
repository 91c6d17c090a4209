/**
 * The instalment reminder workflow's activities (core/notifications/instalment-reminders.ts): when the next reminder
 * is due, and recording (and, in production, mailing) one. Inputs and results carry ids, indexes and dates; the
 * debtor's name and address are read here and never leave the activity.
 */
import type { Db } from '../core/platform/db';
import type { Logger } from '../core/platform/logger';
import type { SecretBox } from '../core/platform/secret-box';
import type { Mode } from '../core/platform/mode';
import type { Mailer } from '../core/notifications/mail';
import {
  nextInstalmentReminder,
  remindInstalment,
  type NextReminder,
  type ReminderTarget,
} from '../core/notifications/instalment-reminders';

export type { InstalmentRemindersInput } from '../core/notifications/notifications-consumer';
export type { NextReminder, ReminderTarget };

export interface DebtorNotificationActivityDeps {
  db: Db;
  mode: Mode;
  publicBaseUrl: string;
  /** Debtor mail; unused in the sandbox. */
  mailer?: Mailer;
  /** Seals each message's secrets between attempts; unused in the sandbox. */
  secretBox?: SecretBox;
  logger?: Logger;
}

export function createDebtorNotificationActivities(deps: DebtorNotificationActivityDeps) {
  return {
    async nextInstalmentReminder(target: ReminderTarget & { afterIndex: number }): Promise<NextReminder | null> {
      return nextInstalmentReminder(deps.db, target);
    },
    async remindInstalment(target: ReminderTarget & { instalmentIndex: number; asOf: string }): Promise<string> {
      return remindInstalment(deps, target);
    },
  };
}

export type DebtorNotificationActivities = ReturnType<typeof createDebtorNotificationActivities>;
