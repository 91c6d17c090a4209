/**
 * The portal link's actions on a debt's page: send a new link (revoking the old) and revoke it (core/staff/
 * console-portal-links.ts). A send answers with a page (in the sandbox it shows the new link once, so it is not a
 * redirect); a revoke goes back to the debt's page.
 */
import type Router from '@koa/router';
import { TERMINAL_STATUSES } from '../../../core/debts/debt-status';
import type { Debt } from '../../../core/debts/debts';
import type { Db } from '../../../core/platform/db';
import { portalLinkStatus } from '../../../core/staff/console-portal-links';
import { canManagePortalLinks } from '../../../core/staff/roles';
import type { StaffSession } from '../../../core/staff/sessions';
import { createMailer, type Mailer } from '../../../core/notifications/mail';
import { revokeConsolePortalLink, sendNewPortalLink } from '../../../core/staff/console-portal-links';
import type { ConsoleContext } from '../shared/console-context';
import { PortalLinkSentBody, type PortalLinkSectionProps } from './portal-link-section';
import { actorOf } from '../shared/signed-in';

export function portalLinkRoutes(router: Router, c: ConsoleContext): void {
  const { db, config, logger } = c.deps;
  const { secretBox } = c.deps.webhooks;
  let mailer: Mailer | undefined = c.deps.debtorMailer;
  const senderDeps = () => {
    mailer ??= createMailer({ smtpUrl: config.mail.smtpUrl, from: config.debtorMailFrom });
    const replyTo = config.debtorReplyTo;
    return { db, mode: config.mode, publicBaseUrl: config.publicBaseUrl, mailer, replyTo, secretBox, logger };
  };

  router.post('/console/debts/:id/portal-link/send', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const debtId = ctx.params.id ?? '';
    const sent = await sendNewPortalLink(senderDeps(), actorOf(session), debtId);
    c.page(ctx, 'Portal link', <PortalLinkSentBody debtId={debtId} sent={sent} />);
  });

  router.post('/console/debts/:id/portal-link/revoke', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const debtId = ctx.params.id ?? '';
    await revokeConsolePortalLink({ db, mode: config.mode }, actorOf(session), debtId);
    ctx.status = 303;
    ctx.redirect(`/console/debts/${debtId}?portalLink=revoked`);
  });
}

/** What the debt page's portal link section shows. */
export async function portalLinkSectionProps(
  db: Db,
  session: StaffSession,
  debt: Debt,
  notice: unknown,
): Promise<PortalLinkSectionProps> {
  return {
    debtId: debt.id,
    status: await portalLinkStatus(db, session.organizationId, debt.id),
    canManage: canManagePortalLinks(session.role),
    open: !TERMINAL_STATUSES.includes(debt.status),
    csrfToken: session.csrfToken,
    ...(notice === 'revoked' ? { notice: 'revoked' } : {}),
  };
}
