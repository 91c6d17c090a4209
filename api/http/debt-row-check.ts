/**
 * A placement row checked as `POST /v1/debts` checks its body before writing anything: the route's JSON Schema (the
 * same ajv validator, so the same `invalid_request` paths and words), then the debt's own rules (`missing_debtor`,
 * `missing_external_account_id`, the currency, `invalid_principal`). Built here, where the schema lives, and passed to
 * core/placements, which may not import the API.
 */
import { checkDebtInput } from '../../core/debts/debt-creation';
import type { RowChecker } from '../../core/placements/placement-work';
import { asRowProblems } from '../../core/placements/row-problems';
import { createDebtBody } from '../schemas/debts';
import { compileValidator } from './validation';

export function createDebtRowChecker(): RowChecker {
  const validate = compileValidator('body', createDebtBody);
  return (body) => {
    try {
      validate(body);
      checkDebtInput(body);
      return [];
    } catch (err) {
      return asRowProblems(err);
    }
  };
}
