/**
 * Debtors (DECISIONS.md §2). Every function takes the organisation first and scopes every query by it, so another
 * organisation's debtor is simply not found. Contact data never goes to logs. Amending one is debtor-updates.ts;
 * the SQL that raises a debt with its debtor in one statement is debtor-ctes.ts.
 */
import type { Knex } from 'knex';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { isUuid, newId } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';
import { metadataPairConditions, metadataText, newMetadata, type Metadata } from './metadata';
import { checkedVerification, type VerificationOnFile } from './debtor-verification';

export interface Debtor {
  id: string;
  referenceId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  metadata: Metadata;
  /** Whether a date of birth and a postcode are on file; the values are never sent (debtor-verification.ts). */
  verification: VerificationOnFile;
  createdAt: string;
  updatedAt: string;
}

/** A row of `debtors`. */
export interface DebtorRow {
  id: string;
  organization_id: string;
  reference_id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  /** `json`, parsed by the driver. */
  metadata: Metadata;
  /** Verification data: read here only to say whether it is on file (`toDebtor`). */
  date_of_birth: Date | null;
  postcode: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The debtors table for knex: `metadata` is written as JSON text and read back parsed. */
export type DebtorsTable = Knex.CompositeTableType<
  DebtorRow,
  DebtorsWrite & Pick<DebtorRow, 'id' | 'organization_id' | 'reference_id' | 'first_name' | 'last_name'>,
  DebtorsWrite
>;
type DebtorsWrite = {
  [K in keyof Omit<DebtorRow, 'metadata' | 'date_of_birth'>]?: DebtorRow[K] | Knex.Raw;
} & { metadata?: string; date_of_birth?: string | null };

export interface NewDebtor {
  referenceId: string;
  firstName: string;
  lastName: string;
  email?: string | null;
  phone?: string | null;
  metadata?: Record<string, string | null>;
  /** `YYYY-MM-DD`; checked by `checkedVerification` before it gets here. */
  dateOfBirth?: string | null;
  postcode?: string | null;
}

export const DEBTOR_COLUMNS = [
  'id',
  'reference_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'metadata',
  'date_of_birth',
  'postcode',
  'created_at',
  'updated_at',
] as const;

/** A debtor as read: every column but the organisation, which the query already scoped by. */
export type DebtorFields = Pick<DebtorRow, (typeof DEBTOR_COLUMNS)[number]>;

export function toDebtor(row: DebtorFields): Debtor {
  return {
    id: row.id,
    referenceId: row.reference_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    metadata: row.metadata,
    verification: { dateOfBirth: row.date_of_birth !== null, postcode: row.postcode !== null },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The columns a new debtor writes; `metadata` as the JSON text stored. */
export function newDebtorRow(input: NewDebtor): Omit<
  DebtorRow,
  'id' | 'organization_id' | 'created_at' | 'updated_at' | 'metadata' | 'date_of_birth'
> & {
  metadata: string;
  date_of_birth: string | null;
} {
  return {
    reference_id: input.referenceId,
    first_name: input.firstName,
    last_name: input.lastName,
    email: input.email || null,
    phone: input.phone || null,
    metadata: metadataText(newMetadata(input.metadata)),
    date_of_birth: input.dateOfBirth || null,
    postcode: input.postcode || null,
  };
}

export function referenceTaken(referenceId: string) {
  return errors.invalidRequest(`A debtor with referenceId ${JSON.stringify(referenceId)} already exists.`, [
    { path: 'body.referenceId', message: 'is already used by another debtor of your organisation' },
  ]);
}

/** A debtor is reachable by email or phone, or the portal cannot invite them (DECISIONS.md §2). */
export function requireContact(contact: { email?: string | null; phone?: string | null }): void {
  if (contact.email || contact.phone) return;
  throw errors.invalidRequest('A debtor needs an email address or a phone number.', [
    { path: 'body.email', message: 'email or phone is required' },
  ]);
}

export async function getDebtor(db: Db, organizationId: string, id: string): Promise<Debtor | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('debtors')
    .where({ organization_id: organizationId, id })
    .first(...DEBTOR_COLUMNS);
  return row ? toDebtor(row) : undefined;
}

export async function listDebtors(
  db: Db,
  organizationId: string,
  options: { page: PageRequest; referenceId?: string; email?: string; metadata?: Metadata },
): Promise<Page<Debtor>> {
  const filtered = db('debtors')
    .select(...DEBTOR_COLUMNS.map((column) => `debtors.${column}`))
    .where('debtors.organization_id', organizationId);
  if (options.referenceId !== undefined) void filtered.where('debtors.reference_id', options.referenceId);
  // A metadata pair is walked from its own index, in the list's order (core/debts/metadata.ts).
  const { metadata } = options;
  if (metadata) {
    const [pair] = metadataPairConditions('debtor', organizationId, metadata);
    void filtered.join('metadata_pairs', 'metadata_pairs.record_id', 'debtors.id').whereRaw(pair!.sql, pair!.bindings);
  }
  const query =
    options.email === undefined ? filtered : filtered.whereRaw('lower(debtors.email) = lower(?)', [options.email]);
  return fetchPage(
    query,
    {
      list: 'debtors',
      page: options.page,
      createdAtColumn: metadata ? 'metadata_pairs.record_created_at' : 'debtors.created_at',
      idColumn: metadata ? 'metadata_pairs.record_id' : 'debtors.id',
      position: (row: DebtorFields) => ({ createdAt: row.created_at, id: row.id }),
    },
    toDebtor,
  );
}

/** `POST /v1/debtors`: a taken `referenceId` is a 400 naming the field, not a second debtor. */
export async function createDebtor(db: Db, organizationId: string, input: NewDebtor): Promise<Debtor> {
  requireContact(input);
  const verification = checkedVerification(input, { dateOfBirth: 'body.dateOfBirth', postcode: 'body.postcode' });
  const [row] = await db('debtors')
    .insert({ id: newId(), organization_id: organizationId, ...newDebtorRow({ ...input, ...verification }) })
    .onConflict(['organization_id', 'reference_id'])
    .ignore()
    .returning(DEBTOR_COLUMNS);
  if (!row) throw referenceTaken(input.referenceId);
  return toDebtor(row);
}

/**
 * The inline debtor of `POST /v1/debts`: the organisation's debtor with this `referenceId`, as it is, or a new one.
 * `on conflict do nothing` makes two concurrent first uses of a reference agree on one debtor.
 */
export async function findOrCreateDebtorByReference(db: Db, organizationId: string, input: NewDebtor): Promise<Debtor> {
  const [inserted] = await db('debtors')
    .insert({ id: newId(), organization_id: organizationId, ...newDebtorRow(input) })
    .onConflict(['organization_id', 'reference_id'])
    .ignore()
    .returning(DEBTOR_COLUMNS);
  if (inserted) return toDebtor(inserted);
  const existing = await db('debtors')
    .where({ organization_id: organizationId, reference_id: input.referenceId })
    .first(...DEBTOR_COLUMNS);
  if (!existing) throw new Error('debtor reference conflicted but no debtor holds it');
  return toDebtor(existing);
}
