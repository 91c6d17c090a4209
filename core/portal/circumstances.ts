/**
 * "Tell us about your circumstances": what a debtor writes for the creditor, kept here and shown
 * on the console's debt page. It is debtor free text, so it never enters a workflow's input or history and is never
 * logged; it changes nothing about the debt by itself.
 */
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';

export const MAX_CIRCUMSTANCES_LENGTH = 4000;

export interface DebtorCircumstance {
  id: string;
  body: string;
  createdAt: string;
}

/** The caller has checked the debt is the organisation's (the portal's session names both). */
export async function recordCircumstances(
  db: Db,
  input: { organizationId: string; debtId: string; body: string },
): Promise<DebtorCircumstance> {
  const id = newId();
  const [row] = await db('debtor_circumstances')
    .insert({ id, organization_id: input.organizationId, debt_id: input.debtId, body: input.body })
    .returning<{ created_at: Date }[]>('created_at');
  return { id, body: input.body, createdAt: (row?.created_at ?? new Date()).toISOString() };
}

/** The debt's messages, newest first (at most `limit`). Another organisation's debt has none. */
export async function listCircumstances(
  db: Db,
  organizationId: string,
  debtId: string,
  limit = 50,
): Promise<DebtorCircumstance[]> {
  const rows = await db('debtor_circumstances')
    .where({ organization_id: organizationId, debt_id: debtId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select<{ id: string; body: string; created_at: Date }[]>('id', 'body', 'created_at');
  return rows.map((r) => ({ id: r.id, body: r.body, createdAt: r.created_at.toISOString() }));
}
