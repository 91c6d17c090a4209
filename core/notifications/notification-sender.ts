/**
 * Handles one recorded debtor notification (debtor-notifications.ts): claims it, decides whether it may go (an email
 * address, no opt-out, a debt it still makes sense for), renders it with what the database holds now, and then, in
 * production, mails it; in the sandbox, which sends nothing (spec §1), records the message it would have sent.
 *
 * The secrets a message carries (a portal link's token, the opt-out token) are the same on every attempt to send it
 * (message-secrets.ts: sealed on the row until it is handled); the database keeps only their hashes after that. The
 * sandbox's record shows placeholders in their place, and issues no portal link: the console's "Send a new portal
 * link" shows a sandbox user a working one once.
 *
 * Every attempt checks again that the message may go, with what the database holds then: a retried reminder of an
 * instalment paid meanwhile, or of a plan replaced, is suppressed, not sent.
 */
import { getOrganization } from '../access/organizations';
import { getBranding } from '../branding/branding';
import { getDebtor } from '../debts/debtors';
import { findDebtRow } from '../debts/debts';
import { TERMINAL_STATUSES } from '../debts/debt-status';
import type { Instalment } from '../lifecycle/model';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Mode } from '../platform/mode';
import type { SecretBox } from '../platform/secret-box';
import { portalLinkUrl, PORTAL_LINK_PATH } from '../portal/links';
import { getContactPreferences } from './contact-preferences';
import { renderDebtorMessage, type MessageDetails, type MessageFacts } from './debtor-messages';
import {
  claimNotification,
  finishNotification,
  MAX_SEND_ATTEMPTS,
  releaseNotification,
  type ClaimedNotificationRow,
  type NotificationRow,
  type SuppressionReason,
} from './debtor-notifications';
import type { Mailer } from './mail';
import { messageSecrets, type MessageSecrets } from './message-secrets';
import { optOutUrl, OPT_OUT_PATH } from './opt-out-links';
import { reminderSuppression } from './reminder-check';

export interface NotificationSenderDeps {
  db: Db;
  mode: Mode;
  /** The mode's public base URL: the portal and opt-out links are on this host. */
  publicBaseUrl: string;
  /** Debtor mail, with the notifications' `From`; unused in the sandbox. */
  mailer?: Mailer;
  /**
   * The collector's own address for replies (`NOTIFICATIONS_REPLY_TO`): a message's `Reply-To` when the creditor's
   * branding has no support email. Without either, the message promises no reply.
   */
  replyTo?: string;
  /** Seals a message's secrets between attempts (WEBHOOK_SECRET_KEY's box); unused in the sandbox. */
  secretBox?: SecretBox;
  logger?: Logger;
}

export type DeliveryOutcome = 'sent' | 'recorded' | 'suppressed' | 'failed' | 'retry' | 'not_claimed';

/** What a sandbox record shows where a production email carries a secret. */
export const SANDBOX_PLACEHOLDERS = {
  portalLink: '[the debtor’s private link: the sandbox keeps none]',
  optOut: '[the debtor’s own opt-out link]',
} as const;

/** Handles the notification if nobody has: the outcome, or `retry` when the relay refused and it may be tried again. */
export async function deliverNotification(deps: NotificationSenderDeps, id: string): Promise<DeliveryOutcome> {
  const row = await claimNotification(deps.db, id);
  if (!row) return 'not_claimed';
  return deliverClaimed(deps, row);
}

/** Handles a notification this sender has claimed (claimNotification, or the dispatcher's claimDueNotifications). */
export async function deliverClaimed(
  deps: NotificationSenderDeps,
  row: ClaimedNotificationRow,
): Promise<DeliveryOutcome> {
  const { id } = row;
  try {
    return await handle(deps, row);
  } catch (err) {
    const final = row.attempts >= MAX_SEND_ATTEMPTS;
    // The transport's own words may quote the address: the log and the row keep only its code.
    const code = (err as { code?: string; responseCode?: number }).responseCode ?? (err as { code?: string }).code;
    deps.logger?.warn({ notificationId: id, kind: row.kind, code, final }, 'debtor notification not sent');
    if (final) {
      await finishNotification(deps.db, id, { status: 'failed', reason: `smtp_error:${code ?? 'unknown'}` });
      return 'failed';
    }
    await releaseNotification(deps.db, id);
    return 'retry';
  }
}

async function handle(deps: NotificationSenderDeps, row: ClaimedNotificationRow): Promise<DeliveryOutcome> {
  const { db } = deps;
  const debt = await findDebtRow(db, row.organization_id, row.debt_id);
  const debtor = debt && (await getDebtor(db, row.organization_id, debt.debtor_id));
  const suppress = async (reason: SuppressionReason) => {
    await finishNotification(db, row.id, { status: 'suppressed', reason });
    return 'suppressed' as const;
  };
  if (!debt || !debtor) return suppress('debt_ended');
  if (!debtor.email) return suppress('no_email');
  if ((await getContactPreferences(db, row.organization_id, debtor.id)).emailOptedOut) return suppress('opted_out');
  const ended = (TERMINAL_STATUSES as readonly string[]).includes(debt.status);
  if (ended && (row.kind === 'portal_link' || row.kind === 'instalment_reminder')) return suppress('debt_ended');
  if (row.kind === 'instalment_reminder') {
    const reason = await reminderSuppression(db, {
      organizationId: row.organization_id,
      debtId: row.debt_id,
      planEventId: row.source_id,
      instalmentIndex: row.instalment_index ?? -1,
    });
    if (reason) return suppress(reason);
  }

  const sandbox = deps.mode === 'sandbox';
  if (!sandbox && !deps.mailer) throw new Error('debtor notifications need a mailer outside the sandbox');
  if (!sandbox && !deps.secretBox) throw new Error('debtor notifications need the secret box outside the sandbox');
  const secrets = sandbox ? undefined : await messageSecrets(db, deps.secretBox!, row);
  const details = await detailsOf(deps, row, secrets);
  const facts = await factsOf(deps, row, debtor.firstName, {
    optOutUrl: secrets
      ? optOutUrl(deps.publicBaseUrl, secrets.optOutToken)
      : `${deps.publicBaseUrl}${OPT_OUT_PATH}${SANDBOX_PLACEHOLDERS.optOut}`,
  });
  const message = renderDebtorMessage(facts, details);
  if (sandbox) {
    await finishNotification(db, row.id, { status: 'recorded', subject: message.subject, body: message.text });
    return 'recorded';
  }
  await deps.mailer!.send({
    to: debtor.email,
    subject: message.subject,
    text: message.text,
    ...(facts.replyTo ? { replyTo: facts.replyTo } : {}),
  });
  await finishNotification(db, row.id, { status: 'sent' });
  return 'sent';
}

async function factsOf(
  deps: NotificationSenderDeps,
  row: NotificationRow,
  firstName: string,
  links: { optOutUrl: string },
): Promise<MessageFacts> {
  const [organization, branding] = await Promise.all([
    getOrganization(deps.db, row.organization_id),
    getBranding(deps.db, row.organization_id),
  ]);
  return {
    creditorName: organization?.name ?? 'your creditor',
    debtorFirstName: firstName,
    contact: { email: branding.supportEmail, phone: branding.supportPhone },
    // A reply reaches the creditor's support address, else the collector's; with neither, nobody would read it.
    replyTo: branding.supportEmail ?? (deps.replyTo || null),
    optOutUrl: links.optOutUrl,
  };
}

async function detailsOf(
  deps: NotificationSenderDeps,
  row: NotificationRow,
  secrets: MessageSecrets | undefined,
): Promise<MessageDetails> {
  switch (row.kind) {
    case 'portal_link':
      return {
        kind: 'portal_link',
        portalUrl: secrets?.portalToken
          ? portalLinkUrl(deps.publicBaseUrl, secrets.portalToken)
          : `${deps.publicBaseUrl}${PORTAL_LINK_PATH}${SANDBOX_PLACEHOLDERS.portalLink}`,
      };
    case 'instalment_reminder': {
      const schedule = await planScheduleOf(deps.db, row.organization_id, row.debt_id);
      return { kind: 'instalment_reminder', dueDate: schedule[row.instalment_index ?? -1]?.dueDate ?? '' };
    }
    case 'payment_receipt': {
      const payment = (await eventData(deps.db, row.source_id))?.payment as
        { id: string; createdAt: string } | undefined;
      return {
        kind: 'payment_receipt',
        paidAt: payment?.createdAt ?? new Date().toISOString(),
        reference: payment?.id ?? row.source_id,
      };
    }
    case 'plan_schedule':
    case 'plan_defaulted':
      return { kind: row.kind };
  }
}

async function planScheduleOf(db: Db, organizationId: string, debtId: string): Promise<Instalment[]> {
  const row = await db('debts')
    .where({ organization_id: organizationId, id: debtId })
    .first<{ plan_schedule: Instalment[] | null } | undefined>('plan_schedule');
  return row?.plan_schedule ?? [];
}

async function eventData(db: Db, eventId: string): Promise<Record<string, unknown> | undefined> {
  const row = await db('events').where({ id: eventId }).first<{ data: Record<string, unknown> } | undefined>('data');
  return row?.data;
}
