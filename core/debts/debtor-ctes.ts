/**
 * The `debtor` CTE of the statement that raises a debt in one round trip (debt-creation.ts): the debtor it names,
 * inline or by id, scoped by the organisation like every debtor read.
 */
import { newId } from '../platform/ids';
import type { SqlPart } from '../platform/sql-part';
import { newDebtorRow, type NewDebtor } from './debtors';

/**
 * A `debtor` CTE (one `id` column) for a statement that raises a debt in one round trip: the inline debtor of
 * `POST /v1/debts`, inserted, or the organisation's debtor already holding its `referenceId`. Empty when the
 * reference was taken by a transaction that committed after the statement's snapshot: the caller then falls back to
 * `findOrCreateDebtorByReference`, whose second statement sees it.
 */
export function inlineDebtorCte(organizationId: string, input: NewDebtor): SqlPart {
  const row = newDebtorRow(input);
  return {
    sql: `new_debtor as (
       insert into debtors (id, organization_id, reference_id, first_name, last_name, email, phone, date_of_birth,
                            postcode)
       values (?, ?, ?, ?, ?, ?, ?, ?::date, ?) on conflict (organization_id, reference_id) do nothing returning id
     ), debtor as (
       select id from new_debtor
       union all
       select id from debtors where organization_id = ? and reference_id = ? and not exists (select from new_debtor)
     )`,
    bindings: [
      newId(),
      organizationId,
      row.reference_id,
      row.first_name,
      row.last_name,
      row.email,
      row.phone,
      row.date_of_birth,
      row.postcode,
      organizationId,
      row.reference_id,
    ],
  };
}

/** A `debtor` CTE holding the organisation's debtor `id`, or no row. `id` must be a UUID (`isUuid`). */
export function existingDebtorCte(organizationId: string, id: string): SqlPart {
  return {
    sql: `debtor as (select id from debtors where organization_id = ? and id = ?)`,
    bindings: [organizationId, id],
  };
}
