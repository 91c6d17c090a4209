/**
 * Raising a debt (`POST /v1/debts`, DECISIONS.md §2): the debtor by id or inline, the spec's error codes in a fixed
 * order (missing_debtor, missing_external_account_id, currency, invalid_principal, then debtor_not_found, which
 * needs the database), and the `debt.created` event in the same transaction as the debt.
 */
import type { Trx } from '../platform/db';
import { findOrCreateDebtorByReference, getDebtor, type NewDebtor } from './debtors';
import { toDebt, debtColumns, type Debt, type DebtRow } from './debts';
import { ApiError, errors, type FieldError } from '../platform/errors';
import { recordEvent } from '../events/outbox';
import { newId } from '../platform/ids';
import { parseCurrency, parsePrincipal } from './money';

export interface CreateDebtInput {
  debtorId?: string;
  debtorReferenceId?: string;
  debtorFirstName?: string;
  debtorLastName?: string;
  debtorEmail?: string;
  debtorPhone?: string;
  /** A JSON number, its source text, or a decimal string. */
  originalPrincipal?: unknown;
  currency?: string;
  externalAccountId?: string;
  clientReference?: string;
}

const INLINE_FIELDS = ['debtorReferenceId', 'debtorFirstName', 'debtorLastName', 'debtorEmail', 'debtorPhone'] as const;
const INLINE_REQUIRED = ['debtorReferenceId', 'debtorFirstName', 'debtorLastName'] as const;

type DebtorChoice = { kind: 'existing'; debtorId: string } | { kind: 'inline'; debtor: NewDebtor };

function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

function incompleteInlineDebtor(input: CreateDebtInput): FieldError[] {
  const problems: FieldError[] = INLINE_REQUIRED.filter((field) => isBlank(input[field])).map((field) => ({
    path: `body.${field}`,
    message: 'is required for an inline debtor',
  }));
  if (isBlank(input.debtorEmail) && isBlank(input.debtorPhone)) {
    problems.push({ path: 'body.debtorEmail', message: 'debtorEmail or debtorPhone is required for an inline debtor' });
  }
  return problems;
}

function chooseDebtor(input: CreateDebtInput): DebtorChoice {
  const inline = INLINE_FIELDS.filter((field) => input[field] !== undefined);
  if (input.debtorId !== undefined) {
    if (inline.length === 0) return { kind: 'existing', debtorId: input.debtorId };
    throw errors.invalidRequest(
      'Send debtorId or the inline debtor fields, not both.',
      inline.map((field) => ({ path: `body.${field}`, message: 'cannot be combined with debtorId' })),
    );
  }
  if (inline.length === 0) throw new ApiError('missing_debtor');
  const problems = incompleteInlineDebtor(input);
  if (problems.length > 0) {
    throw new ApiError(
      'missing_debtor',
      'An inline debtor needs debtorReferenceId, debtorFirstName, debtorLastName and debtorEmail or debtorPhone.',
      { errors: problems },
    );
  }
  const debtor: NewDebtor = {
    referenceId: input.debtorReferenceId ?? '',
    firstName: input.debtorFirstName ?? '',
    lastName: input.debtorLastName ?? '',
    email: input.debtorEmail || null,
    phone: input.debtorPhone || null,
  };
  return { kind: 'inline', debtor };
}

/** An inline `debtorReferenceId` already in use reuses that debtor as it is (its details are not overwritten). */
async function resolveDebtorId(trx: Trx, organizationId: string, choice: DebtorChoice): Promise<string> {
  if (choice.kind === 'inline') return (await findOrCreateDebtorByReference(trx, organizationId, choice.debtor)).id;
  const debtor = await getDebtor(trx, organizationId, choice.debtorId);
  if (!debtor) throw new ApiError('debtor_not_found');
  return debtor.id;
}

/**
 * Validates, resolves the debtor, inserts the debt and its `debt.created` event, all in the caller's transaction (an
 * inline debtor too: it must not outlive a debt that failed).
 */
export async function createDebt(trx: Trx, organizationId: string, input: CreateDebtInput): Promise<Debt> {
  const choice = chooseDebtor(input);
  if (isBlank(input.externalAccountId)) throw new ApiError('missing_external_account_id');
  const currency = parseCurrency(input.currency);
  const principal = parsePrincipal(input.originalPrincipal, currency);
  const debtorId = await resolveDebtorId(trx, organizationId, choice);
  const [row] = await trx('debts')
    .insert({
      id: newId(),
      organization_id: organizationId,
      debtor_id: debtorId,
      external_account_id: input.externalAccountId,
      client_reference: input.clientReference || null,
      original_principal: principal,
      outstanding_principal: principal,
      currency,
      status: 'PendingAssignment',
    })
    .returning<DebtRow[]>(debtColumns(trx));
  if (!row) throw new Error('insert into debts returned no row');
  const debt = toDebt(row);
  await recordEvent(trx, organizationId, 'debt.created', { debt });
  return debt;
}
