/**
 * The portal link section of a debt's page (docs/notifications.md) and the page a send answers with. Forms only: each
 * action is a POST with the session's CSRF token; no script.
 */
import type { PortalLinkStatus, SentPortalLink } from '../../../core/staff/console-portal-links';
import { CsrfField } from '../../layout';
import { When } from '../shared/time';

export interface PortalLinkSectionProps {
  debtId: string;
  status: PortalLinkStatus;
  canManage: boolean;
  /** A terminal debt offers no action. */
  open: boolean;
  csrfToken: string;
  /** `revoked` after a revoke (the page's query). */
  notice?: string;
}

export function PortalLinkSection(props: PortalLinkSectionProps) {
  const { status, debtId } = props;
  return (
    <section class="card" aria-labelledby="portal-link">
      <h2 id="portal-link">Portal link</h2>
      {props.notice === 'revoked' && (
        <p class="notice" role="status">
          The portal link is revoked: it no longer opens the debt.
        </p>
      )}
      <p>
        {status.liveSince ? (
          <>
            The debtor has a working link, sent <When iso={status.liveSince} />.
          </>
        ) : (
          'The debtor has no working link.'
        )}
        {status.lastRevokedAt && (
          <>
            {' '}
            A link was last revoked <When iso={status.lastRevokedAt} />.
          </>
        )}
      </p>
      {props.open && props.canManage && (
        <div class="actions">
          <form method="post" action={`/console/debts/${debtId}/portal-link/send`}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Send a new portal link</button>
          </form>
          {status.liveSince && (
            <form method="post" action={`/console/debts/${debtId}/portal-link/revoke`}>
              <CsrfField token={props.csrfToken} />
              <button type="submit">Revoke the portal link</button>
            </form>
          )}
        </div>
      )}
      {props.open && !props.canManage && (
        <p class="muted">Only an owner or an admin can send or revoke a portal link.</p>
      )}
    </section>
  );
}

const NOT_SENT: Record<string, string> = {
  opted_out: 'the debtor opted out of email',
  no_email: 'the debtor has no email address',
  debt_ended: 'the debt has ended',
};

export function PortalLinkSentBody({ debtId, sent }: { debtId: string; sent: SentPortalLink }) {
  return (
    <section class="card">
      {sent.outcome === 'sent' && (
        <p role="status">A new portal link was emailed to the debtor. The old link no longer works.</p>
      )}
      {sent.outcome === 'recorded' && (
        <>
          <p role="status">
            The sandbox sends no email: the message is recorded under Debtor emails. The old link no longer works. This
            is the new link, shown only now:
          </p>
          <p>
            <code class="secret">{sent.sandboxLink}</code>
          </p>
        </>
      )}
      {sent.outcome === 'suppressed' && (
        <p role="status">
          The old link no longer works, but no new link was sent: {NOT_SENT[sent.reason ?? ''] ?? sent.reason}.
        </p>
      )}
      {(sent.outcome === 'failed' || sent.outcome === 'retry' || sent.outcome === 'not_claimed') && (
        <p role="status">The old link no longer works. The email could not be sent yet: it will be tried again.</p>
      )}
      <p>
        <a href={`/console/debts/${debtId}`}>Back to the debt</a>
      </p>
    </section>
  );
}
