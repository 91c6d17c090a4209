/**
 * A debt's portal link from the console (docs/notifications.md): "Send a new portal link" revokes the debt's live link
 * and mails the debtor a new one, through the same notification path as the link mailed when the debt was raised
 * (opt-out and a missing address honoured, the send recorded); "Revoke the portal link" revokes it. Owners and
 * admins; each is audit-logged in the transaction of its change, never with the token. The sandbox mails nothing: there the new link is
 * returned to the caller, to be shown once to the user who asked, and the message it would have sent is recorded.
 */
import { findDebtRow } from '../debts/debts';
import { claimNotification, recordNotifications } from '../notifications/debtor-notifications';
import {
  deliverClaimed,
  type DeliveryOutcome,
  type NotificationSenderDeps,
} from '../notifications/notification-sender';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { newId } from '../platform/ids';
import { issuePortalLink, portalLinkUrl, revokePortalLink } from '../portal/links';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requirePortalLinkManagement } from './roles';

export interface PortalLinkStatus {
  /** When the live link was issued; null when the debt has none. */
  liveSince: string | null;
  /** When a link of the debt was last revoked; null when none ever was. */
  lastRevokedAt: string | null;
}

export async function portalLinkStatus(db: Db, organizationId: string, debtId: string): Promise<PortalLinkStatus> {
  const rows = await db('portal_links')
    .where({ organization_id: organizationId, debt_id: debtId })
    .select<{ created_at: Date; revoked_at: Date | null }[]>(
      db.raw('max(created_at) filter (where revoked_at is null) as created_at'),
      db.raw('max(revoked_at) as revoked_at'),
    );
  const row = rows[0];
  return {
    liveSince: row?.created_at?.toISOString() ?? null,
    lastRevokedAt: row?.revoked_at?.toISOString() ?? null,
  };
}

export interface SentPortalLink {
  outcome: DeliveryOutcome;
  /** Sandbox only: the new link, shown once to the user who asked; production never returns it. */
  sandboxLink?: string;
  /** Why nothing went out (`opted_out`, `no_email`, …), when nothing did. */
  reason?: string | null;
}

async function requireDebt(db: Db, actor: StaffActor, debtId: string) {
  requirePortalLinkManagement(actor.role);
  const debt = await findDebtRow(db, actor.organizationId, debtId);
  if (!debt) throw errors.notFound('debt');
  return debt;
}

export async function sendNewPortalLink(
  deps: NotificationSenderDeps,
  actor: StaffActor,
  debtId: string,
): Promise<SentPortalLink> {
  const { db, mode } = deps;
  const debt = await requireDebt(db, actor, debtId);
  const organizationId = actor.organizationId;
  // The change (the old link revoked, the new message on record) and its audit entry commit together; what became of
  // the mail is the message's own record (the Notifications page), since the mail cannot join the transaction. The
  // message is claimed in the same transaction, so the mail dispatcher (which polls for pending rows) cannot take it
  // first and leave this page without its outcome (or, in the sandbox, without the link to show); if this process dies
  // before handling it, the claim expires and the dispatcher sends it.
  const claimed = await db.transaction(async (trx) => {
    // The old link stops working whatever happens next: that is what the user asked for.
    await revokePortalLink(trx, { organizationId, debtId: debt.id });
    const [recorded] = await recordNotifications(trx, [
      { organizationId, debtId: debt.id, kind: 'portal_link', sourceId: `console_${newId()}` },
    ]);
    await recordAudit(trx, actor, mode, {
      action: 'portal_link.sent',
      target: debt.id,
      details: { notificationId: recorded },
    });
    return (await claimNotification(trx, recorded!))!;
  });
  const { id } = claimed;
  const outcome = await deliverClaimed(deps, claimed);
  const row = await db('debtor_notifications').where({ id }).first<{ reason: string | null }>('reason');
  let sandboxLink: string | undefined;
  if (mode === 'sandbox' && outcome === 'recorded') {
    const { token } = await issuePortalLink(db, { organizationId, debtId: debt.id });
    sandboxLink = portalLinkUrl(deps.publicBaseUrl, token);
  }
  return { outcome, reason: row?.reason ?? null, ...(sandboxLink ? { sandboxLink } : {}) };
}

/** Revokes the debt's live link; false when it had none. */
export async function revokeConsolePortalLink(
  deps: { db: Db; mode: NotificationSenderDeps['mode'] },
  actor: StaffActor,
  debtId: string,
): Promise<boolean> {
  const debt = await requireDebt(deps.db, actor, debtId);
  return deps.db.transaction(async (trx) => {
    const revoked = await revokePortalLink(trx, { organizationId: actor.organizationId, debtId: debt.id });
    await recordAudit(trx, actor, deps.mode, { action: 'portal_link.revoked', target: debt.id, details: { revoked } });
    return revoked;
  });
}
