/**
 * Amending a debtor (`PATCH /v1/debtors/{id}`): only what changes is written, under the row's lock, and a
 * `referenceId` another debtor of the organisation holds is refused naming the field.
 */
import type { Db, Trx } from '../platform/db';
import { isUuid } from '../platform/ids';
import {
  DEBTOR_COLUMNS,
  referenceTaken,
  requireContact,
  toDebtor,
  type Debtor,
  type DebtorFields,
  type DebtorRow,
} from './debtors';
import { metadataText, patchedMetadata, type MetadataPatch } from './metadata';
import { checkedVerification } from './debtor-verification';

/**
 * PATCH semantics: absent or null leaves a field alone; an empty string clears `email`, `phone`, `dateOfBirth` or
 * `postcode`; `metadata` is merged key by key (core/debts/metadata.ts).
 */
export type DebtorPatch = Partial<
  Record<'referenceId' | 'firstName' | 'lastName' | 'email' | 'phone' | 'dateOfBirth' | 'postcode', string | null>
> & {
  metadata?: MetadataPatch;
};

/**
 * `PATCH /v1/debtors/{id}` under a row lock in the caller's transaction; undefined when the debtor is not the
 * organisation's. Unchanged fields write nothing.
 */
export async function updateDebtor(
  trx: Trx,
  organizationId: string,
  id: string,
  patch: DebtorPatch,
): Promise<Debtor | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await trx('debtors')
    .where({ organization_id: organizationId, id })
    .forUpdate()
    .first(...DEBTOR_COLUMNS);
  if (!row) return undefined;
  const changes = debtorChanges(row, patch);
  if (Object.keys(changes).length === 0) return toDebtor(row);
  requireContact({ ...row, ...changes });
  if (changes.reference_id !== undefined) await assertReferenceFree(trx, organizationId, id, changes.reference_id);
  const [updated] = await trx('debtors')
    .where({ organization_id: organizationId, id })
    .update({ ...changes, updated_at: trx.fn.now(3) })
    .returning(DEBTOR_COLUMNS)
    .catch((err: unknown) => {
      // A concurrent PATCH took the reference between our check and our write.
      if (changes.reference_id && (err as { code?: string }).code === '23505')
        throw referenceTaken(changes.reference_id);
      throw err;
    });
  if (!updated) throw new Error('the locked debtor row was not updated');
  return toDebtor(updated);
}

type DebtorChanges = Partial<
  Pick<DebtorRow, 'reference_id' | 'first_name' | 'last_name' | 'email' | 'phone' | 'postcode'> & {
    metadata: string;
    date_of_birth: string | null;
  }
>;

function debtorChanges(row: DebtorFields, patch: DebtorPatch): DebtorChanges {
  const metadata = patchedMetadata(row.metadata, patch.metadata);
  return {
    ...fieldChanges(row, patch),
    ...verificationChanges(row, patch),
    ...(metadata ? { metadata: metadataText(metadata) } : {}),
  };
}

/** pg reads a `date` as local midnight: its local fields are the stored day. */
const storedDate = (date: Date | null): string | null =>
  date &&
  [date.getFullYear(), date.getMonth() + 1, date.getDate()].map((n, i) => String(n).padStart(i ? 2 : 4, '0')).join('-');

/** Checked before anything is written: a bad value refuses the whole PATCH. */
function verificationChanges(row: DebtorFields, patch: DebtorPatch): DebtorChanges {
  const checked = checkedVerification(patch, { dateOfBirth: 'body.dateOfBirth', postcode: 'body.postcode' });
  const changes: DebtorChanges = {};
  if (checked.dateOfBirth !== undefined && checked.dateOfBirth !== storedDate(row.date_of_birth)) {
    changes.date_of_birth = checked.dateOfBirth;
  }
  if (checked.postcode !== undefined && checked.postcode !== row.postcode) changes.postcode = checked.postcode;
  return changes;
}

function fieldChanges(row: DebtorFields, patch: DebtorPatch): DebtorChanges {
  const next: DebtorChanges = {
    reference_id: patch.referenceId ?? undefined,
    first_name: patch.firstName ?? undefined,
    last_name: patch.lastName ?? undefined,
    // An empty string clears; null or absent leaves the value alone.
    email: patch.email === '' ? null : (patch.email ?? undefined),
    phone: patch.phone === '' ? null : (patch.phone ?? undefined),
  };
  const isChange = ([column, value]: [string, string | null | undefined]) =>
    value !== undefined &&
    value !== row[column as Exclude<keyof DebtorChanges, 'metadata' | 'date_of_birth' | 'postcode'>];
  return Object.fromEntries(Object.entries(next).filter(isChange));
}

async function assertReferenceFree(db: Db, organizationId: string, id: string, referenceId: string): Promise<void> {
  const holder = await db('debtors')
    .where({ organization_id: organizationId, reference_id: referenceId })
    .whereNot('id', id)
    .first('id');
  if (holder) throw referenceTaken(referenceId);
}
