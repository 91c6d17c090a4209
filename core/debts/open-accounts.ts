/**
 * One open debt per `externalAccountId` (docs/debts.md). The partial unique index
 * `debts_one_open_per_external_account` enforces it, so two concurrent requests cannot both raise the account; these
 * helpers turn that rule into the `409 external_account_id_in_use` problem naming the open debt.
 */
import type { Db } from '../platform/db';
import { ApiError } from '../platform/errors';
import { TERMINAL_STATUSES } from './debt-status';

const OPEN_SQL = `status not in (${TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ')}) and not external_account_shared`;
const INDEX = 'debts_one_open_per_external_account';

/** For an `insert into debts`: do nothing (and return no row) when the account already has an open debt. */
export const ON_OPEN_ACCOUNT_CONFLICT = `on conflict (organization_id, external_account_id) where ${OPEN_SQL} do nothing`;

function inUse(existingDebtId?: string): ApiError {
  return new ApiError(
    'external_account_id_in_use',
    'One of your debts with this externalAccountId is still open; recall it or wait until it is finished, or ' +
      'use it as it is.',
    {
      errors: [{ path: 'body.externalAccountId', message: 'is the account of an open debt' }],
      ...(existingDebtId ? { existingDebtId } : {}),
    },
  );
}

/** Throws `external_account_id_in_use` when another open debt of the organisation has the account reference. */
export async function refuseSecondOpenDebt(
  db: Db,
  organizationId: string,
  externalAccountId: string,
  exceptDebtId?: string,
): Promise<void> {
  const query = db('debts')
    .where({ organization_id: organizationId, external_account_id: externalAccountId })
    .whereRaw(OPEN_SQL);
  if (exceptDebtId) void query.whereNot({ id: exceptDebtId });
  const open = await query.first<{ id: string } | undefined>('id');
  if (open) throw inUse(open.id);
}

/** A write that met the index anyway (a concurrent request won the race) answers the same problem. */
export function asOpenAccountConflict(err: unknown): unknown {
  const pgError = err as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === INDEX ? inUse() : err;
}
