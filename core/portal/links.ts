/**
 * Each debt's link into the debtor portal. The link carries 32 random bytes (base64url); only
 * their SHA-256 is stored, so a database read never yields a working link. A link is good until it is revoked;
 * issuing a new one revokes the debt's previous link in the same transaction (one live link per debt, enforced by a
 * partial unique index). Opening a link proves nothing by itself: the portal asks for a second factor first.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Trx } from '../platform/db';
import { newId } from '../platform/ids';

/** Where a link lands, below the host's public base URL. */
export const PORTAL_LINK_PATH = '/portal/l/';
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedPortalLink {
  linkId: string;
  /** The secret part: mailed to the debtor, never stored or logged. */
  token: string;
}

export interface ResolvedPortalLink {
  linkId: string;
  organizationId: string;
  debtId: string;
}

export function hashPortalToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function portalLinkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${PORTAL_LINK_PATH}${token}`;
}

/** A new link for the debt, revoking the one it had. The caller has checked the debt is the organisation's. */
export async function issuePortalLink(
  db: Db,
  input: { organizationId: string; debtId: string; now?: Date },
): Promise<IssuedPortalLink> {
  const now = input.now ?? new Date();
  const token = randomBytes(32).toString('base64url');
  const linkId = newId();
  await db.transaction(async (trx: Trx) => {
    await revokeLive(trx, input.organizationId, input.debtId, now);
    await trx('portal_links').insert({
      id: linkId,
      organization_id: input.organizationId,
      debt_id: input.debtId,
      token_hash: hashPortalToken(token),
      created_at: now,
      revoked_at: null,
    });
  });
  return { linkId, token };
}

/** Revoke the debt's live link, if any; true when one was revoked. */
export async function revokePortalLink(
  db: Db,
  input: { organizationId: string; debtId: string; now?: Date },
): Promise<boolean> {
  return (await revokeLive(db, input.organizationId, input.debtId, input.now ?? new Date())) > 0;
}

async function revokeLive(db: Db | Trx, organizationId: string, debtId: string, now: Date): Promise<number> {
  return db('portal_links')
    .where({ organization_id: organizationId, debt_id: debtId })
    .whereNull('revoked_at')
    .update({ revoked_at: now });
}

/** The live link a token opens, or null for a malformed, unknown or revoked token (the caller answers all alike). */
export async function resolvePortalLink(db: Db, token: string): Promise<ResolvedPortalLink | null> {
  if (!TOKEN_FORM.test(token)) return null;
  const row = await db('portal_links')
    .where({ token_hash: hashPortalToken(token) })
    .whereNull('revoked_at')
    .first<{ id: string; organization_id: string; debt_id: string } | undefined>('id', 'organization_id', 'debt_id');
  return row ? { linkId: row.id, organizationId: row.organization_id, debtId: row.debt_id } : null;
}
