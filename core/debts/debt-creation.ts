/**
 * Raising a debt (`POST /v1/debts`, DECISIONS.md §2): the debtor by id or inline, the spec's error codes in a fixed
 * order (missing_debtor, missing_external_account_id, currency, invalid_principal, then debtor_not_found, which
 * needs the database), and the `debt.created` event in the same transaction as the debt.
 */
import { queryNamedRaw } from '../platform/prepared';
import type { Trx } from '../platform/db';
import { existingDebtorCte, inlineDebtorCte } from './debtor-ctes';
import { findOrCreateDebtorByReference, getDebtor, type NewDebtor } from './debtors';
import { toDebt, debtColumns, debtSelectSql, type Debt, type DebtRow } from './debts';
import { debtJsonSql } from './debt-json';
import { ApiError, errors, type FieldError } from '../platform/errors';
import { eventCtes, plainEventCtes, recordEvent } from '../events/outbox';
import type { PlainTransaction } from '../platform/plain-transaction';
import type { SqlPart } from '../platform/sql-part';
import { isUuid, newId } from '../platform/ids';
import { parseCurrency, parsePrincipal } from './money';
import { metadataText, newMetadata } from './metadata';
import { checkedVerification } from './debtor-verification';
import { asOpenAccountConflict, ON_OPEN_ACCOUNT_CONFLICT, refuseSecondOpenDebt } from './open-accounts';

export interface CreateDebtInput {
  debtorId?: string;
  debtorReferenceId?: string;
  debtorFirstName?: string;
  debtorLastName?: string;
  debtorEmail?: string;
  debtorPhone?: string;
  /** Verification data of a new inline debtor (core/debts/debtor-verification.ts). */
  debtorDateOfBirth?: string;
  debtorPostcode?: string;
  /** A JSON number, its source text, or a decimal string. */
  originalPrincipal?: unknown;
  currency?: string;
  externalAccountId?: string;
  clientReference?: string;
  /** The debt's metadata (not the inline debtor's). */
  metadata?: Record<string, string | null>;
}

/** The fields of an inline debtor on POST /v1/debts (the API's schema lists the same). */
export const INLINE_FIELDS = [
  'debtorReferenceId',
  'debtorFirstName',
  'debtorLastName',
  'debtorEmail',
  'debtorPhone',
  'debtorDateOfBirth',
  'debtorPostcode',
] as const;
const INLINE_REQUIRED = ['debtorReferenceId', 'debtorFirstName', 'debtorLastName'] as const;

type DebtorChoice =
  | { kind: 'existing'; debtorId: string }
  | { kind: 'inline'; debtor: NewDebtor }
  | { kind: 'reference'; referenceId: string };
/** A choice once a reference-only debtor has been looked up. */
type ResolvedDebtorChoice = Exclude<DebtorChoice, { kind: 'reference' }>;

/** An existing debtor named by its reference; `missing_debtor` when none has it, saying what a new one needs. */
async function debtorByReference(trx: Trx, organizationId: string, referenceId: string): Promise<ResolvedDebtorChoice> {
  const found = await trx('debtors')
    .where({ organization_id: organizationId, reference_id: referenceId })
    .first<{ id: string } | undefined>('id');
  if (found) return { kind: 'existing', debtorId: found.id };
  throw new ApiError(
    'missing_debtor',
    'None of your debtors has this debtorReferenceId. To create the debtor with the debt, send debtorFirstName, ' +
      'debtorLastName and debtorEmail or debtorPhone as well.',
    {
      errors: INLINE_REQUIRED.filter((f) => f !== 'debtorReferenceId').map((field) => ({
        path: `body.${field}`,
        message: 'is required for a new debtor',
      })),
    },
  );
}

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
  // Only the reference: one of the organisation's debtors, found by it (resolved in createDebt).
  if (inline.length === 1 && inline[0] === 'debtorReferenceId' && !isBlank(input.debtorReferenceId)) {
    return { kind: 'reference', referenceId: input.debtorReferenceId! };
  }
  const problems = incompleteInlineDebtor(input);
  if (problems.length > 0) {
    throw new ApiError(
      'missing_debtor',
      'An inline debtor needs debtorReferenceId, debtorFirstName, debtorLastName and debtorEmail or debtorPhone.',
      { errors: problems },
    );
  }
  const verification = checkedVerification(
    { dateOfBirth: input.debtorDateOfBirth, postcode: input.debtorPostcode },
    { dateOfBirth: 'body.debtorDateOfBirth', postcode: 'body.debtorPostcode' },
  );
  const debtor: NewDebtor = {
    referenceId: input.debtorReferenceId ?? '',
    firstName: input.debtorFirstName ?? '',
    lastName: input.debtorLastName ?? '',
    email: input.debtorEmail || null,
    phone: input.debtorPhone || null,
    ...verification,
  };
  return { kind: 'inline', debtor };
}

/** An inline `debtorReferenceId` already in use reuses that debtor as it is (its details are not overwritten). */
async function resolveDebtorId(trx: Trx, organizationId: string, choice: ResolvedDebtorChoice): Promise<string> {
  if (choice.kind === 'inline') return (await findOrCreateDebtorByReference(trx, organizationId, choice.debtor)).id;
  const debtor = await getDebtor(trx, organizationId, choice.debtorId);
  if (!debtor) throw new ApiError('debtor_not_found');
  return debtor.id;
}

interface ValidDebt {
  externalAccountId: string;
  clientReference: string | null;
  principal: string;
  currency: string;
  /** As stored: JSON text. */
  metadata: string;
}

/** The checks that need no database, in the spec's order: the debtor's choice, then the debt's own fields. */
function checkedInput(input: CreateDebtInput): { chosen: DebtorChoice; debt: ValidDebt } {
  const chosen = chooseDebtor(input);
  if (isBlank(input.externalAccountId)) throw new ApiError('missing_external_account_id');
  const currency = parseCurrency(input.currency);
  const principal = parsePrincipal(input.originalPrincipal, currency);
  const debt = {
    externalAccountId: input.externalAccountId ?? '',
    clientReference: input.clientReference || null,
    principal,
    currency,
    metadata: metadataText(newMetadata(input.metadata)),
  };
  return { chosen, debt };
}

/**
 * The checks of `createDebt` that need no database, alone: throws what `createDebt` would throw for this input before
 * it reads anything (a placement's rows are checked so before any is imported, core/placements).
 */
export function checkDebtInput(input: CreateDebtInput): void {
  checkedInput(input);
}

/**
 * Validates, resolves the debtor, inserts the debt and its `debt.created` event, all in the caller's transaction (an
 * inline debtor too: it must not outlive a debt that failed). Usually one statement, one round trip
 * (`insertInOneStatement`); the rare race it cannot settle takes the step-by-step path.
 */
export async function createDebt(trx: Trx, organizationId: string, input: CreateDebtInput): Promise<Debt> {
  const { chosen, debt } = checkedInput(input);
  const choice =
    chosen.kind === 'reference' ? await debtorByReference(trx, organizationId, chosen.referenceId) : chosen;
  if (choice.kind === 'existing' && !isUuid(choice.debtorId)) throw new ApiError('debtor_not_found');
  const statement = insertStatement(eventCtes, trx, organizationId, choice, debt);
  const inserted = await queryNamedRaw<DebtRow>(trx, statement.sql, statement.bindings);
  if (inserted[0]) return toDebt(inserted[0]);
  // No row: the debtor was not found, or the account already has an open debt (the insert did nothing).
  await refuseSecondOpenDebt(trx, organizationId, debt.externalAccountId);
  if (choice.kind === 'existing') throw new ApiError('debtor_not_found');
  return insertStepByStep(trx, organizationId, choice, debt);
}

/**
 * `createDebt`'s usual case in a plain transaction (core/platform/plain-transaction.ts, for `POST /v1/debts`): the
 * same checks, in the same order, and the same one statement. Undefined when the case needs more than that statement
 * (a debtor named by its reference alone, an unknown debtor, an account with an open debt, a race on an inline
 * reference): the caller then rolls back and runs `createDebt`, which answers it. Refusals of the request's own input
 * are thrown as `createDebt` throws them.
 */
export async function createDebtPlainly(
  tx: PlainTransaction,
  organizationId: string,
  input: CreateDebtInput,
): Promise<Debt | undefined> {
  const { chosen, debt } = checkedInput(input);
  if (chosen.kind === 'reference') return undefined;
  if (chosen.kind === 'existing' && !isUuid(chosen.debtorId)) throw new ApiError('debtor_not_found');
  const statement = insertStatement(plainEventCtes, tx, organizationId, chosen, debt);
  const [row] = await tx.query<DebtRow>(statement.sql, statement.bindings);
  return row ? toDebt(row) : undefined;
}

/** The `debt.created` event's data, `{ debt }`, as JSON that PostgreSQL writes from the `debt` CTE's row. */
const DEBT_CREATED_DATA_SQL = `('{"debt":' || ${debtJsonSql('debt')} || '}')::json`;
const DEBT_CTE_COLUMNS_SQL = debtSelectSql('debt');

/**
 * The debtor (found or inserted), the debt and its event (with its delivery) in one statement. The event's data is
 * the debt as JSON text written by PostgreSQL (debt-json.ts), the same bytes as `JSON.stringify({ debt })` of the
 * answer. It returns no row when the `debtor` CTE found none or the account has an open debt: nothing but an inline
 * debtor was written then. One fixed text per debtor choice, run as a named statement (prepared once per connection:
 * planning it cost about as much as running it).
 */
function insertStatement<Tx>(
  events: (tx: Tx, organizationId: string, type: 'debt.created', data: SqlPart, from: string) => SqlPart,
  tx: Tx,
  organizationId: string,
  choice: ResolvedDebtorChoice,
  debt: ValidDebt,
): SqlPart {
  const debtor =
    choice.kind === 'inline'
      ? inlineDebtorCte(organizationId, choice.debtor)
      : existingDebtorCte(organizationId, choice.debtorId);
  const event = events(tx, organizationId, 'debt.created', { sql: DEBT_CREATED_DATA_SQL, bindings: [] }, 'debt');
  return {
    sql: `with ${debtor.sql}, debt as (
       insert into debts (id, organization_id, debtor_id, external_account_id, client_reference, original_principal,
                          outstanding_principal, currency, metadata, status)
       select ?, ?, debtor.id, ?, ?, ?, ?, ?, ?::json, 'PendingAssignment' from debtor
       ${ON_OPEN_ACCOUNT_CONFLICT}
       returning *
     ), ${event.sql}
     select ${DEBT_CTE_COLUMNS_SQL} from debt`,
    bindings: [
      ...debtor.bindings,
      newId(),
      organizationId,
      debt.externalAccountId,
      debt.clientReference,
      debt.principal,
      debt.principal,
      debt.currency,
      debt.metadata,
      ...event.bindings,
    ],
  };
}

/** Statement by statement, for an inline debtor whose reference a concurrent request committed meanwhile. */
async function insertStepByStep(
  trx: Trx,
  organizationId: string,
  choice: ResolvedDebtorChoice,
  debt: ValidDebt,
): Promise<Debt> {
  const debtorId = await resolveDebtorId(trx, organizationId, choice);
  const [row] = await trx('debts')
    .insert({
      id: newId(),
      organization_id: organizationId,
      debtor_id: debtorId,
      external_account_id: debt.externalAccountId,
      client_reference: debt.clientReference,
      original_principal: debt.principal,
      outstanding_principal: debt.principal,
      currency: debt.currency,
      metadata: debt.metadata,
      status: 'PendingAssignment',
    })
    .returning<DebtRow[]>(debtColumns(trx))
    .catch((err: unknown) => {
      throw asOpenAccountConflict(err);
    });
  if (!row) throw new Error('insert into debts returned no row');
  const created = toDebt(row);
  await recordEvent(trx, organizationId, 'debt.created', { debt: created });
  return created;
}
