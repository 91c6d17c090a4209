/**
 * Debts (DECISIONS.md §2): the record as the API returns it, and its reads. Creation and PATCH live in
 * debt-creation.ts and debt-updates.ts. Every query is scoped by the organisation, so another organisation's debt is
 * simply not found. Amounts stay decimal strings until `toDebt` shapes the wire record.
 */
import type { Knex } from 'knex';
import type { Db, Trx } from '../platform/db';
import type { DebtStatus, DisputeOutcome, PlanFrequency, PlanStatus } from './debt-status';
import { isUuid } from '../platform/ids';
import { normalizeAmount, toMoneyNumber } from './money';
import { fetchJsonPage, type PageRequest } from '../platform/pagination';
import { equalTo, type JsonPage } from '../platform/json-page';
import { debtJsonSql } from './debt-json';
import { metadataPairConditions, type Metadata } from './metadata';

export interface DebtPlan {
  status: PlanStatus;
  instalmentAmount: number;
  frequency: PlanFrequency;
  instalmentCount: number;
  instalmentsPaid: number;
  /** A calendar date, `YYYY-MM-DD`; null once the plan has ended. */
  nextDueDate: string | null;
}

export interface Debt {
  id: string;
  debtorId: string;
  externalAccountId: string;
  clientReference: string | null;
  originalPrincipal: number;
  outstandingPrincipal: number;
  currency: string;
  status: DebtStatus;
  disputeReason: string | null;
  disputeOutcome: DisputeOutcome | null;
  disputeResolvedAt: string | null;
  plan: DebtPlan | null;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
}

/**
 * A row of `debts` as this module reads it, always through `debtColumns`: NUMERIC as strings, the due date as
 * `YYYY-MM-DD` text (a plain select would turn the date into a local-time Date).
 */
export interface DebtRow {
  id: string;
  organization_id: string;
  debtor_id: string;
  external_account_id: string;
  client_reference: string | null;
  original_principal: string;
  outstanding_principal: string;
  currency: string;
  status: DebtStatus;
  dispute_reason: string | null;
  dispute_outcome: DisputeOutcome | null;
  dispute_resolved_at: Date | null;
  plan_status: PlanStatus | null;
  plan_instalment_amount: string | null;
  plan_frequency: PlanFrequency | null;
  plan_instalment_count: number | null;
  plan_instalments_paid: number | null;
  plan_next_due_date: string | null;
  /** `json`, parsed by the driver. */
  metadata: Metadata;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of a `DebtRow`; the date goes out as text because pg would turn it into a local-time Date. Knex cannot
 * type a raw column, so queries selecting these name their result `DebtRow` (`first<DebtRow>`, `returning<DebtRow[]>`).
 */
export function debtColumns(db: Db): (string | Knex.Raw)[] {
  return [
    'debts.id',
    'debts.organization_id',
    'debts.debtor_id',
    'debts.external_account_id',
    'debts.client_reference',
    'debts.original_principal',
    'debts.outstanding_principal',
    'debts.currency',
    'debts.status',
    'debts.dispute_reason',
    'debts.dispute_outcome',
    'debts.dispute_resolved_at',
    'debts.plan_status',
    'debts.plan_instalment_amount',
    'debts.plan_frequency',
    'debts.plan_instalment_count',
    'debts.plan_instalments_paid',
    db.raw(`to_char(debts.plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date`),
    'debts.metadata',
    'debts.created_at',
    'debts.updated_at',
  ];
}

/** `debtColumns` as SQL text over a row source aliased `t` (a CTE), for statements knex cannot build. */
export function debtSelectSql(t: string): string {
  const plain = [
    'id',
    'organization_id',
    'debtor_id',
    'external_account_id',
    'client_reference',
    'original_principal',
    'outstanding_principal',
    'currency',
    'status',
    'dispute_reason',
    'dispute_outcome',
    'dispute_resolved_at',
    'plan_status',
    'plan_instalment_amount',
    'plan_frequency',
    'plan_instalment_count',
    'plan_instalments_paid',
    'metadata',
  ].map((column) => `${t}.${column}`);
  const dated = [`to_char(${t}.plan_next_due_date, 'YYYY-MM-DD') as plan_next_due_date`];
  return [...plain, ...dated, `${t}.created_at`, `${t}.updated_at`].join(', ');
}

export function toDebt(row: DebtRow): Debt {
  return {
    id: row.id,
    debtorId: row.debtor_id,
    externalAccountId: row.external_account_id,
    clientReference: row.client_reference,
    originalPrincipal: toMoneyNumber(row.original_principal, row.currency),
    outstandingPrincipal: toMoneyNumber(row.outstanding_principal, row.currency),
    currency: row.currency,
    status: row.status,
    disputeReason: row.dispute_reason,
    disputeOutcome: row.dispute_outcome,
    disputeResolvedAt: row.dispute_resolved_at?.toISOString() ?? null,
    plan: toPlan(row),
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toPlan(row: DebtRow): DebtPlan | null {
  if (row.plan_status === null || row.plan_instalment_amount === null || row.plan_frequency === null) return null;
  return {
    status: row.plan_status,
    instalmentAmount: toMoneyNumber(row.plan_instalment_amount, row.currency),
    frequency: row.plan_frequency,
    instalmentCount: row.plan_instalment_count ?? 0,
    instalmentsPaid: row.plan_instalments_paid ?? 0,
    nextDueDate: row.plan_next_due_date,
  };
}

/** Canonical decimal strings for a row's amounts (NUMERIC(19,4) pads them). */
export function rowAmounts(row: DebtRow): { original: string; outstanding: string } {
  return { original: normalizeAmount(row.original_principal), outstanding: normalizeAmount(row.outstanding_principal) };
}

/** The organisation's debt row. */
export async function findDebtRow(db: Db, organizationId: string, id: string): Promise<DebtRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db('debts').where({ organization_id: organizationId, id }).first<DebtRow | undefined>(debtColumns(db));
}

/** The organisation's debt row under a row lock, for a read-modify-write in the caller's transaction. */
export async function lockDebtRow(trx: Trx, organizationId: string, id: string): Promise<DebtRow | undefined> {
  if (!isUuid(id)) return undefined;
  return trx('debts')
    .where({ organization_id: organizationId, id })
    .first<DebtRow | undefined>(debtColumns(trx))
    .forUpdate();
}

export async function getDebt(db: Db, organizationId: string, id: string): Promise<Debt | undefined> {
  const row = await findDebtRow(db, organizationId, id);
  return row ? toDebt(row) : undefined;
}

const METADATA_PAIRS_OF_DEBTS = {
  table: 'metadata_pairs',
  join: 'join debts on debts.id = metadata_pairs.record_id',
  createdAt: 'record_created_at',
  id: 'record_id',
};

export interface DebtFilters {
  status?: DebtStatus;
  debtorId?: string;
  externalAccountId?: string;
  clientReference?: string;
  /** Only debts raised strictly after / before this moment. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** One key and value the debt's metadata must hold. */
  metadata?: Metadata;
}

/**
 * Newest first; each filter has an index ending in the list order, so a page is one index range scan. PostgreSQL
 * writes the page's JSON (debt-json.ts), the same bytes `toDebt` and JSON.stringify would.
 */
export async function listDebts(
  db: Db,
  organizationId: string,
  options: DebtFilters & { page: PageRequest },
): Promise<JsonPage> {
  const { metadata } = options;
  return fetchJsonPage(db, {
    list: 'debts',
    page: options.page,
    from: 'debts',
    // A metadata pair is walked from its own index, in the list's order (core/debts/metadata.ts).
    ...(metadata ? { via: METADATA_PAIRS_OF_DEBTS } : {}),
    where: [
      ...equalTo(
        {
          organization_id: organizationId,
          status: options.status,
          debtor_id: options.debtorId,
          external_account_id: options.externalAccountId,
          client_reference: options.clientReference,
        },
        'debts',
      ),
      ...(options.createdAfter ? [{ sql: 'debts.created_at > ?', bindings: [options.createdAfter] }] : []),
      ...(options.createdBefore ? [{ sql: 'debts.created_at < ?', bindings: [options.createdBefore] }] : []),
      ...(metadata ? metadataPairConditions('debt', organizationId, metadata) : []),
    ],
    item: debtJsonSql('debts'),
  });
}
