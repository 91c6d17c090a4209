/**
 * A debtor's verification data (docs/portal.md "The second factor"): a date of birth and a postcode the client may
 * supply, which the portal asks for because no email of ours carries them. The rules for accepting them, comparing
 * them and showing them masked live here. The values themselves leave the database only for the second factor's check
 * (core/portal/asked-factors.ts) and, masked, for the console: the API says only whether each is on file.
 */
import type { Db } from '../platform/db';
import { errors, type FieldError } from '../platform/errors';
import { isUuid } from '../platform/ids';

/** What the API and the console may say about the data: whether each is on file, never the value. */
export interface VerificationOnFile {
  dateOfBirth: boolean;
  postcode: boolean;
}

/** As stored: the date `YYYY-MM-DD`, the postcode trimmed (as the client wrote it). Null when not on file. */
export interface VerificationData {
  dateOfBirth: string | null;
  postcode: string | null;
}

/** Nobody alive was born before this: an earlier date is a typo or a placeholder (1 January 1900 included). */
const EARLIEST_BIRTH = '1900-01-02';
const DATE_FORM = /^(\d{4})-(\d{2})-(\d{2})$/;
/** After trimming: letters, digits, spaces and hyphens, 2 to 10 of them (every country's postcode fits). */
const POSTCODE_FORM = /^[A-Za-z0-9 -]{2,10}$/;

/** The date as `YYYY-MM-DD` when it names a real calendar day, else null ("1985-02-30" is not one). */
export function calendarDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  if (year < 1000 || year > 9999) return null;
  return date.toISOString().slice(0, 10);
}

/** Why `text` is not an acceptable date of birth today, or null when it is. */
export function dateOfBirthProblem(text: string, today: Date = new Date()): string | null {
  const parts = DATE_FORM.exec(text);
  const date = parts && calendarDate(Number(parts[1]), Number(parts[2]), Number(parts[3]));
  if (!date) return 'must be a real calendar date written YYYY-MM-DD';
  if (date >= today.toISOString().slice(0, 10)) return 'must be in the past';
  if (date < EARLIEST_BIRTH) return 'must be after 1900-01-01';
  return null;
}

/** Why `text` (trimmed) is not an acceptable postcode, or null when it is. */
export function postcodeProblem(text: string): string | null {
  return POSTCODE_FORM.test(text.trim()) ? null : 'must be 2 to 10 letters, digits, spaces or hyphens';
}

/** Case, spaces and hyphens do not matter: "SW1A 1AA" is "sw1a1aa", "00-950" is "00950". */
export function normalizePostcode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '');
}

/**
 * The verification data of a request, checked, with `paths` naming its fields in the answer (`body.dateOfBirth`,
 * `body.debtorDateOfBirth`). Absent or null leaves a value out (a PATCH leaves it alone); "" is an explicit null (a
 * PATCH clears it; a new debtor has none, as with an empty email). Every problem is reported at once, before anything
 * is written.
 */
export function checkedVerification(
  input: { dateOfBirth?: string | null; postcode?: string | null },
  paths: { dateOfBirth: string; postcode: string },
  today: Date = new Date(),
): Partial<VerificationData> {
  const checked: Partial<VerificationData> = {};
  const problems: FieldError[] = [];
  const take = (field: keyof VerificationData, problemOf: (text: string) => string | null) => {
    const value = input[field];
    if (value === undefined || value === null) return;
    const problem = value === '' ? null : problemOf(value);
    if (problem) problems.push({ path: paths[field], message: problem });
    else checked[field] = value === '' ? null : value.trim();
  };
  take('dateOfBirth', (text) => dateOfBirthProblem(text, today));
  take('postcode', postcodeProblem);
  if (problems.length > 0) throw errors.invalidRequest('The verification data is not valid.', problems);
  return checked;
}

/** The console's mask of a date of birth: its century only, "••/••/19••". */
export function maskedDateOfBirth(date: string): string {
  return `••/••/${date.slice(0, 2)}••`;
}

/** The console's mask of a postcode: its last two characters behind a fixed mask, "•••• 1A" (the length stays hid). */
export function maskedPostcode(postcode: string): string {
  return `•••• ${normalizePostcode(postcode).slice(-2)}`;
}

/** The console's view of a debtor's data: each value masked, or null when not on file. */
export async function maskedVerification(db: Db, organizationId: string, debtorId: string): Promise<VerificationData> {
  const row = isUuid(debtorId)
    ? await db('debtors')
        .where({ organization_id: organizationId, id: debtorId })
        .first<VerificationData | undefined>(
          db.raw(`to_char(date_of_birth, 'YYYY-MM-DD') as "dateOfBirth"`),
          'postcode',
        )
    : undefined;
  return {
    dateOfBirth: row?.dateOfBirth ? maskedDateOfBirth(row.dateOfBirth) : null,
    postcode: row?.postcode ? maskedPostcode(row.postcode) : null,
  };
}
