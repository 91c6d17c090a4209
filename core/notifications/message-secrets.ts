/**
 * The secrets of one debtor email, the same on every attempt to send it: its opt-out token and, for a portal-link
 * email, the portal link's token. The first attempt mints them and seals them on the notification's row (the
 * secret-box, the row's id as associated data); a retry opens them, so a mail a slow relay delivered while we gave
 * up on it keeps a working opt-out link and a live portal link (a second link would revoke the first). They are
 * cleared when the row is handled (finishNotification): after that nothing needs them.
 */
import type { Db } from '../platform/db';
import { sealedSecretColumns, sealedSecretOf, type SealedSecretColumns, type SecretBox } from '../platform/secret-box';
import { issuePortalLink, resolvePortalLink } from '../portal/links';
import { hashOptOutToken, newOptOutToken } from './opt-out-links';
import type { NotificationRow } from './debtor-notifications';

export interface MessageSecrets {
  optOutToken: string;
  /** A portal-link email's link token. */
  portalToken?: string;
}

type SecretsRow = Pick<NotificationRow, 'id' | 'organization_id' | 'debt_id' | 'kind'> & Partial<SealedSecretColumns>;

export async function messageSecrets(db: Db, box: SecretBox, row: SecretsRow): Promise<MessageSecrets> {
  const kept = row.secret_ciphertext
    ? (JSON.parse(box.open(sealedSecretOf(row as SealedSecretColumns), row.id)) as MessageSecrets)
    : null;
  // A kept portal token whose link was revoked meanwhile (the console sent a newer one) is replaced: the mail must
  // carry a link that opens.
  const portalLive = kept?.portalToken !== undefined && (await resolvePortalLink(db, kept.portalToken)) !== null;
  if (kept && (row.kind !== 'portal_link' || portalLive)) return kept;

  const secrets: MessageSecrets = {
    optOutToken: kept?.optOutToken ?? newOptOutToken().token,
    ...(row.kind === 'portal_link'
      ? { portalToken: (await issuePortalLink(db, { organizationId: row.organization_id, debtId: row.debt_id })).token }
      : {}),
  };
  // Sealed before any mail can carry them: a mail that went out always has links that work.
  await db('debtor_notifications')
    .where({ id: row.id })
    .update({
      ...sealedSecretColumns(box.seal(JSON.stringify(secrets), row.id)),
      opt_out_token_hash: hashOptOutToken(secrets.optOutToken),
    });
  return secrets;
}
