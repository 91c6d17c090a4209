/**
 * A debtor's contact preferences: whether they opted out of email. Every debtor notification checks it
 * before sending and carries the way to opt out; the portal's preferences page and the opt-out link set it.
 */
import type { Db, Trx } from '../platform/db';

export interface ContactPreferences {
  emailOptedOut: boolean;
  emailOptedOutAt: Date | null;
}

export async function getContactPreferences(
  db: Db | Trx,
  organizationId: string,
  debtorId: string,
): Promise<ContactPreferences> {
  const row = await db('debtor_contact_preferences')
    .where({ organization_id: organizationId, debtor_id: debtorId })
    .first<{ email_opted_out_at: Date | null } | undefined>('email_opted_out_at');
  const at = row?.email_opted_out_at ?? null;
  return { emailOptedOut: at !== null, emailOptedOutAt: at };
}

/** Opt the debtor out of email (or back in). The caller has checked the debtor is the organisation's. */
export async function setEmailOptOut(
  db: Db | Trx,
  input: { organizationId: string; debtorId: string; optedOut: boolean; now?: Date },
): Promise<ContactPreferences> {
  const now = input.now ?? new Date();
  const at = input.optedOut ? now : null;
  await db('debtor_contact_preferences')
    .insert({
      debtor_id: input.debtorId,
      organization_id: input.organizationId,
      email_opted_out_at: at,
      updated_at: now,
    })
    .onConflict('debtor_id')
    .merge({ email_opted_out_at: at, updated_at: now });
  return { emailOptedOut: input.optedOut, emailOptedOutAt: at };
}
