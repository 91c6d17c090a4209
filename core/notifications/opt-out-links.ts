/**
 * The opt-out link every debtor email carries: it works without signing in, so it must be unguessable. Each email gets
 * its own 32 random bytes (base64url); only their SHA-256 is stored, on the notification's row, so a database read
 * never yields a working link. The link lands on a page that asks the debtor to confirm (a POST): opening it alone,
 * as a mail scanner does, changes nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../platform/db';
import { setEmailOptOut } from './contact-preferences';

export const OPT_OUT_PATH = '/notifications/opt-out/';
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export function hashOptOutToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newOptOutToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOptOutToken(token) };
}

export function optOutUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${OPT_OUT_PATH}${token}`;
}

export interface OptOutTarget {
  organizationId: string;
  debtorId: string;
  creditorName: string;
}

/** The debtor an opt-out token was mailed to, or null for a malformed or unknown token (answered alike). */
export async function resolveOptOutToken(db: Db, token: string): Promise<OptOutTarget | null> {
  if (!TOKEN_FORM.test(token)) return null;
  const row = await db('debtor_notifications as n')
    .join('debts as d', (j) => j.on('d.id', 'n.debt_id').andOn('d.organization_id', 'n.organization_id'))
    .join('organizations as o', 'o.id', 'n.organization_id')
    .where('n.opt_out_token_hash', hashOptOutToken(token))
    .first<{ organization_id: string; debtor_id: string; name: string } | undefined>(
      'n.organization_id',
      'd.debtor_id',
      'o.name',
    );
  return row ? { organizationId: row.organization_id, debtorId: row.debtor_id, creditorName: row.name } : null;
}

/** Opts the token's debtor out of email; the target, or null for a token that opens nothing. */
export async function optOutByToken(db: Db, token: string): Promise<OptOutTarget | null> {
  const target = await resolveOptOutToken(db, token);
  if (!target) return null;
  await setEmailOptOut(db, { organizationId: target.organizationId, debtorId: target.debtorId, optedOut: true });
  return target;
}
