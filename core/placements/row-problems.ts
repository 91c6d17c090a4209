/**
 * Why a row of a placement was not imported, in the words `POST /v1/debts` would have answered it with: the same
 * code, and for each field its path (without `body.`) and message; a refusal that names no field (e.g.
 * `invalid_principal`) is placed on the field it is about.
 */
import { ApiError } from '../platform/errors';

export interface RowProblem {
  /** The column (`metadata.<key>` for metadata); null for the row as a whole (e.g. too many values). */
  field: string | null;
  code: string;
  message: string;
  /** `external_account_id_in_use`: the open debt of the account (the row is skipped, not failed). */
  existingDebtId?: string;
}

/** The field a code is about when its refusal names none. */
const FIELD_OF_CODE: Record<string, string> = {
  missing_external_account_id: 'externalAccountId',
  invalid_principal: 'originalPrincipal',
  missing_debtor: 'debtorReferenceId',
  debtor_not_found: 'debtorId',
  external_account_id_in_use: 'externalAccountId',
};

function fieldOf(path: string): string | null {
  const field = path.replace(/^body\.?/, '');
  return field === '' ? null : field;
}

/** One problem per field the refusal names, else one for the whole refusal. */
export function rowProblemsOf(err: ApiError): RowProblem[] {
  const existingDebtId = typeof err.extra.existingDebtId === 'string' ? err.extra.existingDebtId : undefined;
  const extra = existingDebtId ? { existingDebtId } : {};
  const fieldErrors = err.extra.errors ?? [];
  if (fieldErrors.length === 0) {
    return [{ field: FIELD_OF_CODE[err.code] ?? null, code: err.code, message: err.message, ...extra }];
  }
  return fieldErrors.map((f) => ({ field: fieldOf(f.path), code: err.code, message: f.message, ...extra }));
}

/** A refusal's problems, or the error itself thrown again when it is no refusal of the row (a lost connection). */
export function asRowProblems(err: unknown): RowProblem[] {
  if (err instanceof ApiError && err.status < 500) return rowProblemsOf(err);
  throw err;
}
