/**
 * Debtor emails, on the sandbox host only (docs/notifications.md): the sandbox sends no email (spec §1), so this page
 * lists each one it would have sent, newest first, with its words, so a client can follow a debtor's journey. Every
 * console role may read it. In production the page does not exist (404): debtors' emails are theirs.
 */
import type Router from '@koa/router';
import { listNotifications, type ListedNotification } from '../../../core/notifications/debtor-notifications';
import type { NotificationKind } from '../../../core/notifications/debtor-messages';
import { errors } from '../../../core/platform/errors';
import type { ConsoleContext } from '../shared/console-context';
import { signedIn } from '../shared/signed-in';
import { When } from '../shared/time';

export const NOTIFICATIONS_PAGE_LIMIT = 100;

const KIND_LABELS: Record<NotificationKind, string> = {
  portal_link: 'Portal link',
  plan_schedule: 'Plan schedule',
  instalment_reminder: 'Instalment reminder',
  payment_receipt: 'Payment receipt',
  plan_defaulted: 'Plan default notice',
};

const STATUS_LABELS: Record<string, string> = {
  recorded: 'Would have been sent',
  suppressed: 'Not sent',
  pending: 'Waiting',
  sending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
};

const REASONS: Record<string, string> = {
  opted_out: 'the debtor opted out of email',
  no_email: 'the debtor has no email address',
  debt_ended: 'the debt had ended',
  plan_not_current: 'the plan was no longer running',
  paid: 'the instalment was already paid',
  too_late: 'the instalment was already due',
};

export function notificationsRoutes(router: Router, c: ConsoleContext): void {
  router.get('/console/notifications', async (ctx) => {
    if (c.deps.config.mode !== 'sandbox') throw errors.notFound('page');
    const session = await signedIn(c, ctx);
    if (!session) return;
    const items = await listNotifications(c.deps.db, session.organizationId, { limit: NOTIFICATIONS_PAGE_LIMIT });
    c.page(ctx, 'Debtor emails', <NotificationsBody items={items} />);
  });
}

export function NotificationsBody({ items }: { items: ListedNotification[] }) {
  return (
    <>
      <p>
        The sandbox sends no email to debtors. These are the emails it would have sent, newest first (the last{' '}
        {NOTIFICATIONS_PAGE_LIMIT}). In production each is sent to the debtor instead, unless they opted out.
      </p>
      <section class="card" aria-labelledby="emails">
        <h2 id="emails">Emails</h2>
        {items.length === 0 ? (
          <p>None yet. Raise a debt and one will appear here.</p>
        ) : (
          <ol class="events">
            {items.map((n) => (
              <li key={n.id}>
                <p class="event-head">
                  <strong>{KIND_LABELS[n.kind]}</strong>
                  {n.instalmentIndex !== null && ` (instalment ${n.instalmentIndex + 1})`} ·{' '}
                  <a href={`/console/debts/${n.debtId}`}>{n.accountReference}</a> ·{' '}
                  {STATUS_LABELS[n.status] ?? n.status}
                  {n.reason && `: ${REASONS[n.reason] ?? n.reason}`}{' '}
                  <span class="muted">
                    <When iso={n.createdAt} />
                  </span>
                </p>
                {n.subject && n.body && (
                  <details>
                    <summary>
                      {n.subject}
                      <span class="visually-hidden">
                        {' '}
                        ({KIND_LABELS[n.kind]}, {n.accountReference})
                      </span>
                    </summary>
                    <pre class="payload" tabIndex={0}>
                      {n.body}
                    </pre>
                  </details>
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
