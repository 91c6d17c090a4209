/**
 * A refusal said in a form's words. The API's readers name fields as `body.<name>` (`body.amount must be greater
 * than 0`); a form shows its own labels instead (`Amount must be greater than 0.`). A refusal naming no field (the
 * lifecycle's `invalid_state`) is its detail as is.
 */
import { ApiError } from '../../../core/platform/errors';

/**
 * Only what the form can fix is said on it: a value refused (400) or a move the state does not allow (409). A page
 * not found, a role refused, a limit reached or an outage is the error page.
 */
export function isFormRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 400 || error.status === 409);
}

export function formProblems(error: ApiError, labels: Record<string, string>): string[] {
  const found = error.extra.errors ?? [];
  if (found.length === 0) return [error.message];
  return found.map(({ path, message }) => {
    const name = path.replace(/^body\./, '');
    return `${labels[name] ?? name} ${message}.`;
  });
}

/** The fields a refusal names, to mark them `aria-invalid` on the form. */
export function refusedFields(error: ApiError): Set<string> {
  return new Set((error.extra.errors ?? []).map(({ path }) => path.replace(/^body\./, '')));
}
