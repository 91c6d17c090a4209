/**
 * Transactions: money movements on an organisation's debts (DECISIONS.md §2). A payment is an `Inbound` +
 * `Succeeded` transaction. Recording one does not move the debt's balance: that is the debt lifecycle's job, which
 * records the transaction and updates the debt in one transaction of its own.
 */
import type { Db } from '../platform/db';
import { isUuid } from '../platform/ids';
import { findDebtRow } from './debts';
import { errors } from '../platform/errors';
import { newId } from '../platform/ids';
import { parseAmount, toMoneyNumber } from './money';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';

export const TRANSACTION_DIRECTIONS = ['Inbound', 'Outbound'] as const;
export const TRANSACTION_STATUSES = ['Pending', 'Succeeded', 'Failed', 'Refunded', 'Cancelled'] as const;
export const TRANSACTION_TYPES = ['Payment', 'Refund', 'Remittance', 'Fee'] as const;

export type TransactionDirection = (typeof TRANSACTION_DIRECTIONS)[number];
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export interface Transaction {
  id: string;
  debtId: string;
  direction: TransactionDirection;
  status: TransactionStatus;
  type: TransactionType;
  amount: number;
  currency: string;
  processorReference: string | null;
  createdAt: string;
}

/** A row of `transactions`: the amount as a decimal string (NUMERIC). */
export interface TransactionRow {
  id: string;
  organization_id: string;
  debt_id: string;
  direction: TransactionDirection;
  status: TransactionStatus;
  type: TransactionType;
  amount: string;
  currency: string;
  processor_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'debt_id',
  'direction',
  'status',
  'type',
  'amount',
  'currency',
  'processor_reference',
  'created_at',
] as const;

type TransactionFields = Pick<TransactionRow, (typeof COLUMNS)[number]>;

function toTransaction(row: TransactionFields): Transaction {
  return {
    id: row.id,
    debtId: row.debt_id,
    direction: row.direction,
    status: row.status,
    type: row.type,
    amount: toMoneyNumber(row.amount, row.currency),
    currency: row.currency,
    processorReference: row.processor_reference,
    createdAt: row.created_at.toISOString(),
  };
}

export interface NewTransaction {
  debtId: string;
  direction: TransactionDirection;
  status: TransactionStatus;
  type: TransactionType;
  /** A positive amount in the debt's currency: a number or a decimal string. */
  amount: number | string;
  processorReference?: string | null;
}

/** One of the organisation's transactions; another organisation's, or a malformed id, is not found. */
export async function getTransaction(db: Db, organizationId: string, id: string): Promise<Transaction | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db('transactions')
    .where({ organization_id: organizationId, id })
    .first<TransactionFields | undefined>(...COLUMNS);
  return row && toTransaction(row);
}

/** Records a transaction in the debt's currency; the debt must be the organisation's. */
export async function recordTransaction(db: Db, organizationId: string, input: NewTransaction): Promise<Transaction> {
  const debt = await findDebtRow(db, organizationId, input.debtId);
  if (!debt) throw errors.notFound('debt');
  const [row] = await db('transactions')
    .insert({
      id: newId(),
      organization_id: organizationId,
      debt_id: debt.id,
      direction: input.direction,
      status: input.status,
      type: input.type,
      amount: parseAmount(input.amount, debt.currency, 'amount'),
      currency: debt.currency,
      processor_reference: input.processorReference ?? null,
    })
    .returning(COLUMNS);
  if (!row) throw new Error('insert into transactions returned no row');
  return toTransaction(row);
}

export interface TransactionFilters {
  debtId?: string;
  status?: TransactionStatus;
  type?: TransactionType;
  direction?: TransactionDirection;
  /** Payments only: `Inbound` and `Succeeded`. */
  paymentsOnly?: boolean;
}

/** Newest first; an unknown or foreign `debtId` simply matches nothing. */
export async function listTransactions(
  db: Db,
  organizationId: string,
  options: TransactionFilters & { page: PageRequest },
): Promise<Page<Transaction>> {
  const query = db('transactions')
    .select(...COLUMNS)
    .where({
      organization_id: organizationId,
      ...(options.debtId !== undefined && { debt_id: options.debtId }),
      ...(options.type !== undefined && { type: options.type }),
    })
    // Separate conditions, so a filter that contradicts the payments' own (status=Failed on payments) matches nothing.
    .modify((q) => {
      if (options.status !== undefined) void q.andWhere('status', options.status);
      if (options.direction !== undefined) void q.andWhere('direction', options.direction);
      if (options.paymentsOnly) void q.andWhere({ direction: 'Inbound', status: 'Succeeded' });
    });
  return fetchPage(
    query,
    {
      list: options.paymentsOnly ? 'payments' : 'transactions',
      page: options.page,
      createdAtColumn: 'transactions.created_at',
      idColumn: 'transactions.id',
      position: (row: TransactionFields) => ({ createdAt: row.created_at, id: row.id }),
    },
    toTransaction,
  );
}
