/**
 * Debtors (DECISIONS.md §2). Every function takes the organisation first and scopes every query by it, so another
 * organisation's debtor is simply not found. Contact data never goes to logs.
 */
import type { Knex } from 'knex';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { isUuid, newId } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';
import type { SqlPart } from '../platform/sql-part';
import {
  metadataPairConditions,
  metadataText,
  newMetadata,
  patchedMetadata,
  type Metadata,
  type MetadataPatch,
} from './metadata';

export interface Debtor {
  id: string;
  referenceId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  metadata: Metadata;
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
  [K in keyof Omit<DebtorRow, 'metadata'>]?: DebtorRow[K] | Knex.Raw;
} & { metadata?: string };

export interface NewDebtor {
  referenceId: string;
  firstName: string;
  lastName: string;
  email?: string | null;
  phone?: string | null;
  metadata?: Record<string, string | null>;
}

/**
 * PATCH semantics: absent or null leaves a field alone; an empty string clears `email` or `phone`; `metadata` is
 * merged key by key (core/debts/metadata.ts).
 */
export type DebtorPatch = Partial<
  Record<'referenceId' | 'firstName' | 'lastName' | 'email' | 'phone', string | null>
> & {
  metadata?: MetadataPatch;
};

const COLUMNS = [
  'id',
  'reference_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'metadata',
  'created_at',
  'updated_at',
] as const;

/** A debtor as read: every column but the organisation, which the query already scoped by. */
type DebtorFields = Pick<DebtorRow, (typeof COLUMNS)[number]>;

function toDebtor(row: DebtorFields): Debtor {
  return {
    id: row.id,
    referenceId: row.reference_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The columns a new debtor writes; `metadata` as the JSON text stored. */
function toRow(
  input: NewDebtor,
): Omit<DebtorRow, 'id' | 'organization_id' | 'created_at' | 'updated_at' | 'metadata'> & { metadata: string } {
  return {
    reference_id: input.referenceId,
    first_name: input.firstName,
    last_name: input.lastName,
    email: input.email || null,
    phone: input.phone || null,
    metadata: metadataText(newMetadata(input.metadata)),
  };
}

function referenceTaken(referenceId: string) {
  return errors.invalidRequest(`A debtor with referenceId ${JSON.stringify(referenceId)} already exists.`, [
    { path: 'body.referenceId', message: 'is already used by another debtor of your organisation' },
  ]);
}

/** A debtor is reachable by email or phone, or the portal cannot invite them (DECISIONS.md §2). */
function requireContact(contact: { email?: string | null; phone?: string | null }): void {
  if (contact.email || contact.phone) return;
  throw errors.invalidRequest('A debtor needs an email address or a phone number.', [
    { path: 'body.email', message: 'email or phone is required' },
  ]);
}

export async function getDebtor(db: Db, organizationId: string, id: string): Promise<Debtor | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('debtors')
    .where({ organization_id: organizationId, id })
    .first(...COLUMNS);
  return row ? toDebtor(row) : undefined;
}

export async function listDebtors(
  db: Db,
  organizationId: string,
  options: { page: PageRequest; referenceId?: string; email?: string; metadata?: Metadata },
): Promise<Page<Debtor>> {
  const filtered = db('debtors')
    .select(...COLUMNS.map((column) => `debtors.${column}`))
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
  const [row] = await db('debtors')
    .insert({ id: newId(), organization_id: organizationId, ...toRow(input) })
    .onConflict(['organization_id', 'reference_id'])
    .ignore()
    .returning(COLUMNS);
  if (!row) throw referenceTaken(input.referenceId);
  return toDebtor(row);
}

/**
 * The inline debtor of `POST /v1/debts`: the organisation's debtor with this `referenceId`, as it is, or a new one.
 * `on conflict do nothing` makes two concurrent first uses of a reference agree on one debtor.
 */
export async function findOrCreateDebtorByReference(db: Db, organizationId: string, input: NewDebtor): Promise<Debtor> {
  const [inserted] = await db('debtors')
    .insert({ id: newId(), organization_id: organizationId, ...toRow(input) })
    .onConflict(['organization_id', 'reference_id'])
    .ignore()
    .returning(COLUMNS);
  if (inserted) return toDebtor(inserted);
  const existing = await db('debtors')
    .where({ organization_id: organizationId, reference_id: input.referenceId })
    .first(...COLUMNS);
  if (!existing) throw new Error('debtor reference conflicted but no debtor holds it');
  return toDebtor(existing);
}

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
    .first(...COLUMNS);
  if (!row) return undefined;
  const changes = debtorChanges(row, patch);
  if (Object.keys(changes).length === 0) return toDebtor(row);
  requireContact({ ...row, ...changes });
  if (changes.reference_id !== undefined) await assertReferenceFree(trx, organizationId, id, changes.reference_id);
  const [updated] = await trx('debtors')
    .where({ organization_id: organizationId, id })
    .update({ ...changes, updated_at: trx.fn.now(3) })
    .returning(COLUMNS)
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
  Pick<DebtorRow, 'reference_id' | 'first_name' | 'last_name' | 'email' | 'phone'> & { metadata: string }
>;

function debtorChanges(row: DebtorFields, patch: DebtorPatch): DebtorChanges {
  const metadata = patchedMetadata(row.metadata, patch.metadata);
  return { ...fieldChanges(row, patch), ...(metadata ? { metadata: metadataText(metadata) } : {}) };
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
    value !== undefined && value !== row[column as Exclude<keyof DebtorChanges, 'metadata'>];
  return Object.fromEntries(Object.entries(next).filter(isChange));
}

async function assertReferenceFree(db: Db, organizationId: string, id: string, referenceId: string): Promise<void> {
  const holder = await db('debtors')
    .where({ organization_id: organizationId, reference_id: referenceId })
    .whereNot('id', id)
    .first('id');
  if (holder) throw referenceTaken(referenceId);
}

/**
 * A `debtor` CTE (one `id` column) for a statement that raises a debt in one round trip: the inline debtor of
 * `POST /v1/debts`, inserted, or the organisation's debtor already holding its `referenceId`. Empty when the
 * reference was taken by a transaction that committed after the statement's snapshot: the caller then falls back to
 * `findOrCreateDebtorByReference`, whose second statement sees it.
 */
export function inlineDebtorCte(organizationId: string, input: NewDebtor): SqlPart {
  const row = toRow(input);
  return {
    sql: `new_debtor as (
       insert into debtors (id, organization_id, reference_id, first_name, last_name, email, phone)
       values (?, ?, ?, ?, ?, ?, ?) on conflict (organization_id, reference_id) do nothing returning id
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
