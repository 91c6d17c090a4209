/**
 * The outbox consumer behind debtor notifications (docs/notifications.md): `debt.created` → the portal link,
 * `plan.activated` → the plan's schedule (and the start of the plan's reminder workflow), `payment.received` → a
 * receipt, `plan.defaulted` → the default notice.
 *
 * Exactly once in effect: the batch's transaction records each notification, unique by (event, kind), together with
 * the consumer's cursor; an event handed over again records nothing new. The emails are not sent here: after the
 * commit the consumer wakes the mode's mail dispatcher (mail-dispatcher.ts), which sends what is due fairly across
 * organisations, so a batch of ten thousand new debts neither holds the outbox nor queues other tenants' mail behind
 * it. The sweep after every pass wakes it too, for retries and claims left by a process that died. The reminder
 * workflows' starts are recorded the same way (`notification_reminder_starts`, as the lifecycle consumer records its
 * starts).
 */
import type { Client } from '@temporalio/client';
import type { OutboxConsumer } from '../events/consumer';
import type { Trx } from '../platform/db';
import type { Logger } from '../platform/logger';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import { startOnce } from '../temporal/start-once';
import type { NotificationKind } from './debtor-messages';
import { recordNotifications } from './debtor-notifications';
import { createMailDispatcher, type MailDispatcher } from './mail-dispatcher';
import type { NotificationSenderDeps } from './notification-sender';

export const DEBTOR_NOTIFICATIONS_CONSUMER = 'debtor-notifications';

/** Which event makes which notification. */
export const NOTIFYING_EVENTS: Readonly<Record<string, NotificationKind>> = {
  'debt.created': 'portal_link',
  'plan.activated': 'plan_schedule',
  'payment.received': 'payment_receipt',
  'plan.defaulted': 'plan_defaulted',
};

/** Notifications handled at once when the caller does not say (the lifecycle worker derives it from its SMTP pool). */
const DEFAULT_SENDS_IN_FLIGHT = 4;
const SWEEP_BATCH = 100;
const START_DEADLINE_MS = 10_000;

/** The reminder workflow's input: ids only (no contact detail enters a workflow). */
export interface InstalmentRemindersInput {
  organizationId: string;
  debtId: string;
  /** The `plan.activated` event of the plan whose instalments are reminded. */
  planEventId: string;
  /** The last instalment already handled (continue-as-new carries it); -1 or absent for none. */
  afterIndex?: number;
}

export interface NotificationsConsumerOptions extends NotificationSenderDeps {
  client: Client;
  taskQueue?: string;
  logger: Logger;
  /** The mail dispatcher's sends in flight (mailSendsInFlight of the SMTP pool). */
  sendsInFlight?: number;
}

/** The consumer, and the dispatcher it wakes (which the relay stops with it). */
export type NotificationsConsumer = OutboxConsumer & { readonly dispatcher: MailDispatcher };

interface NotifyingEvent {
  eventId: string;
  organizationId: string;
  type: string;
  debtId: string;
  /** Recorded by a placement's import (core/events/bulk-work.ts). */
  bulk: boolean;
}

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The events whose debt exists in its organisation. Anything else (a debt wiped by a sandbox reset before the event
 * was read, an event whose data names no debt) notifies nobody: one such event must not stall the consumer's batch.
 */
async function ofExistingDebts(trx: Trx, rows: NotifyingEvent[]): Promise<NotifyingEvent[]> {
  const candidates = rows.filter((r) => typeof r.debtId === 'string' && UUID_FORM.test(r.debtId));
  if (candidates.length === 0) return [];
  const found = await trx('debts')
    .whereIn(
      ['organization_id', 'id'],
      candidates.map((r) => [r.organizationId, r.debtId]),
    )
    .select<{ organization_id: string; id: string }[]>('organization_id', 'id');
  const existing = new Set(found.map((d) => `${d.organization_id}/${d.id}`));
  return candidates.filter((r) => existing.has(`${r.organizationId}/${r.debtId}`));
}

export function createNotificationsConsumer(options: NotificationsConsumerOptions): NotificationsConsumer {
  const { db, client } = options;
  const log = options.logger.child({ component: 'debtor-notifications' });
  const dispatcher = createMailDispatcher({
    ...options,
    sendsInFlight: options.sendsInFlight ?? DEFAULT_SENDS_IN_FLIGHT,
  });

  async function startReminders(starts: InstalmentRemindersInput[]): Promise<void> {
    for (const start of starts) {
      try {
        const reminders = {
          taskQueue: options.taskQueue ?? TASK_QUEUES.lifecycle,
          workflowId: workflowIds.instalmentReminders(start.planEventId),
          args: [start],
          typedSearchAttributes: [
            { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: start.organizationId },
            { key: SEARCH_ATTRIBUTE_KEYS.debtId, value: start.debtId },
          ],
        };
        await startOnce(client, WORKFLOW_TYPES.instalmentReminders, reminders, START_DEADLINE_MS);
      } catch (err) {
        log.warn({ err, debtId: start.debtId }, 'reminder workflow not started; the sweep tries again');
        continue;
      }
      await db('notification_reminder_starts').where({ plan_event_id: start.planEventId }).delete();
    }
  }

  return {
    name: DEBTOR_NOTIFICATIONS_CONSUMER,
    dispatcher,
    // Debtors are not mailed about what happened before notifications existed.
    startAt: 'now',
    async consume(trx, events) {
      const wanted = events.filter((e) => e.type in NOTIFYING_EVENTS);
      if (wanted.length === 0) return undefined;
      const rows = await trx('events')
        .whereIn(
          'id',
          wanted.map((e) => e.id),
        )
        .select<NotifyingEvent[]>(
          'id as eventId',
          'organization_id as organizationId',
          'type',
          'bulk',
          trx.raw(`data -> 'debt' ->> 'id' as "debtId"`),
        );
      const notifying = await ofExistingDebts(trx, rows);
      const ids = await recordNotifications(
        trx,
        notifying.map((e) => ({
          organizationId: e.organizationId,
          debtId: e.debtId,
          kind: NOTIFYING_EVENTS[e.type]!,
          sourceId: e.eventId,
          bulk: e.bulk,
        })),
      );
      const starts = notifying
        .filter((e) => e.type === 'plan.activated')
        .map((e) => ({ organizationId: e.organizationId, debtId: e.debtId, planEventId: e.eventId }));
      if (starts.length > 0) {
        await trx('notification_reminder_starts')
          .insert(
            starts.map((s) => ({ plan_event_id: s.planEventId, organization_id: s.organizationId, debt_id: s.debtId })),
          )
          .onConflict('plan_event_id')
          .ignore();
      }
      return async () => {
        // Handed over, not awaited: the relay takes the next batch while the dispatcher sends.
        if (ids.length > 0) dispatcher.wake();
        await startReminders(starts);
      };
    },
    async sweep() {
      // Retries whose pause is over, and claims a dead process left, are due again: the dispatcher takes them.
      dispatcher.wake();
      const recorded = await db('notification_reminder_starts as s')
        .join('organizations as o', 'o.id', 's.organization_id')
        .where('o.mode', options.mode)
        .orderBy('s.created_at')
        .limit(SWEEP_BATCH)
        .select<InstalmentRemindersInput[]>(
          's.organization_id as organizationId',
          's.debt_id as debtId',
          's.plan_event_id as planEventId',
        );
      if (recorded.length > 0) await startReminders(recorded);
    },
    stop() {
      return dispatcher.stop();
    },
  };
}
