/**
 * An audit entry said as a sentence: "ana@example.com minted key *ci-deploy* with all scopes". Targets are named where
 * the page knows them (a key's name, a user's email) and link to their page where they have one (a delivery, a debt);
 * an action without a sentence of its own falls back to its code and details.
 */
import type { ComponentChildren } from 'preact';
import type { AuditLogEntry } from '../../../core/staff/audit-log';
import { scopeSummary } from '../account/keys-pages';

/** What the page knows of the entries' targets: key names by key id. */
export interface AuditNames {
  keys: Map<string, string>;
}

/** A detail as text ('' when absent: every sentence is built, the entry's own one shown). */
const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export function AuditSentence({ entry, names }: { entry: AuditLogEntry; names: AuditNames }) {
  const d = entry.details;
  const target = entry.target ?? '';
  const keyName = names.keys.get(target) ?? text(d.name ?? d.prefix ?? 'a key');
  const delivery = <a href={`/console/deliveries/${target}`}>{text(d.eventType ?? 'a')} delivery</a>;
  const debt = <a href={`/console/debts/${target}`}>{d.externalAccountId ? text(d.externalAccountId) : 'a debt'}</a>;
  const said: Partial<Record<AuditLogEntry['action'], ComponentChildren>> = {
    'key.minted': (
      <>
        minted key <em>{keyName}</em> with {scopeSummary(Array.isArray(d.scopes) ? d.scopes.map(text) : [])} scopes
        {d.readOnly === true && ', read-only'}
      </>
    ),
    'key.revoked': (
      <>
        revoked key <em>{keyName}</em>
      </>
    ),
    'webhook.configured': (
      <>
        set the webhook receiver to <code>{text(d.url)}</code>
        {d.secretMinted === true && ' (a new signing secret was made)'}
      </>
    ),
    'webhook.cleared': (
      <>
        cleared the webhook receiver <code>{text(d.url)}</code>
      </>
    ),
    'webhook.secret_rotated': 'rotated the webhook signing secret',
    'webhook.test_sent': (
      <>
        sent a <a href={`/console/deliveries/${target}`}>test event</a>
      </>
    ),
    'delivery.retried': <>retried a failed {delivery}</>,
    'delivery.retried_now': (
      <>
        retried a {delivery} now (attempt {text(d.attempt)})
      </>
    ),
    'deliveries.retried_failed': (
      <>
        retried {text(d.count)} failed deliveries since {text(d.since).slice(0, 10)}
      </>
    ),
    'branding.changed': (
      <>changed the branding{Array.isArray(d.fields) && d.fields.length > 0 && ` (${d.fields.map(text).join(', ')})`}</>
    ),
    'portal.plan_rules_changed': "changed the debtor portal's plan rules",
    'debt.recalled': <>recalled debt {debt}</>,
    'user.invited': (
      <>
        invited <strong>{target}</strong> as {text(d.role)}
      </>
    ),
    'user.role_changed': (
      <>
        changed <strong>{target}</strong>'s role from {text(d.from)} to {text(d.to)}
      </>
    ),
    'user.removed': (
      <>
        removed <strong>{target}</strong> ({text(d.role)})
      </>
    ),
    'sandbox.reset_requested': 'reset the sandbox',
    'sandbox.signed_up': (
      <>
        signed up for the sandbox as <em>{text(d.organizationName)}</em>
      </>
    ),
    'debt.simulated': (
      <>
        played <em>{text(d.simulation)}</em> on {debt} (now {text(d.status)})
      </>
    ),
    'portal_link.sent': <>sent a portal link for {debt}</>,
    'portal_link.revoked': <>revoked the portal link of {debt}</>,
  };
  const sentence = said[entry.action];
  return (
    <>
      <strong class="actor">{entry.actorEmail}</strong>{' '}
      {sentence ?? (
        <>
          did <code>{entry.action}</code>
          {target && (
            <>
              {' '}
              on <code>{target}</code>
            </>
          )}
        </>
      )}
    </>
  );
}
