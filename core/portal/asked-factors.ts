/**
 * What the portal's second factor asks for (docs/portal.md "The second factor"): the strongest pair the debtor's
 * record allows, of things no email of ours carries. Date of birth and postcode when both are on file; else the one on
 * file and the surname; else the account reference and the surname (the reference only appears on the client's own
 * statements now, and the surname in the debtor's address book, which is why it is the weakest pair).
 *
 * The form may say which kinds of data it asks for (a debtor must know what to type); it never shows a value.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { normalizePostcode, type VerificationOnFile } from '../debts/debtor-verification';
import type { Db } from '../platform/db';
import { hashPortalToken, type ResolvedPortalLink } from './links';

export type Factor = 'dateOfBirth' | 'postcode' | 'surname' | 'accountReference';

/** A visitor's answers, as typed; the date of birth as `YYYY-MM-DD` (or "" when its parts were not a date). */
export type Answers = Partial<Record<Factor, string>>;

/** The two factors asked for, the stronger first. */
export function askedFactors(onFile: VerificationOnFile): [Factor, Factor] {
  if (onFile.dateOfBirth && onFile.postcode) return ['dateOfBirth', 'postcode'];
  if (onFile.dateOfBirth) return ['dateOfBirth', 'surname'];
  if (onFile.postcode) return ['postcode', 'surname'];
  return ['accountReference', 'surname'];
}

/** Case, spacing and punctuation do not matter: "ACCT-0001" is "acct 0001", "O'Brien" is "OBRIEN". */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .toLocaleLowerCase('en')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

const normalizers: Record<Factor, (text: string) => string> = {
  accountReference: normalizeAnswer,
  surname: normalizeAnswer,
  postcode: normalizePostcode,
  dateOfBirth: (text) => text,
};

/** Compared as hashes in constant time; an empty answer never matches (nor does a missing expected value). */
function sameAnswer(factor: Factor, expected: string | null, given: string | undefined): boolean {
  const normalize = normalizers[factor];
  const a = createHash('sha256')
    .update(normalize(expected ?? ''))
    .digest();
  const b = createHash('sha256')
    .update(normalize(given ?? ''))
    .digest();
  return timingSafeEqual(a, b) && expected !== null && normalize(given ?? '').length > 0;
}

/** The values a link's debt and debtor hold for each factor: what answers are judged against. */
export interface LinkSubject {
  link: ResolvedPortalLink;
  debtorId: string;
  expected: Record<Factor, string | null>;
}

/** Whether every asked factor matches. All are compared, so a half-right answer takes as long as a wrong one. */
export function answersMatch(subject: LinkSubject, answers: Answers): boolean {
  const onFile = { dateOfBirth: subject.expected.dateOfBirth !== null, postcode: subject.expected.postcode !== null };
  const results = askedFactors(onFile).map((factor) => sameAnswer(factor, subject.expected[factor], answers[factor]));
  return results.every(Boolean);
}

/**
 * The link's debt and debtor with what the factors are judged against, in one read scoped by the link's organisation.
 * `live` (for judging answers): only a link not revoked; otherwise (for choosing the form) a revoked link too, so a
 * revoked link shows the form it always showed and answers exactly as a wrong answer does.
 */
export async function findLinkSubject(db: Db, token: string, options: { live: boolean }): Promise<LinkSubject | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const query = db('portal_links as l')
    .join('debts as d', (on) => on.on('d.id', 'l.debt_id').andOn('d.organization_id', 'l.organization_id'))
    .join('debtors as p', (on) => on.on('p.id', 'd.debtor_id').andOn('p.organization_id', 'd.organization_id'))
    .where('l.token_hash', hashPortalToken(token))
    .first<SubjectRow | undefined>(
      'l.id as link_id',
      'l.organization_id',
      'l.debt_id',
      'd.debtor_id',
      'd.external_account_id',
      'p.last_name',
      db.raw(`to_char(p.date_of_birth, 'YYYY-MM-DD') as date_of_birth`),
      'p.postcode',
    );
  if (options.live) void query.whereNull('l.revoked_at');
  const row = await query;
  if (!row) return null;
  return {
    link: { linkId: row.link_id, organizationId: row.organization_id, debtId: row.debt_id },
    debtorId: row.debtor_id,
    expected: {
      accountReference: row.external_account_id,
      surname: row.last_name,
      dateOfBirth: row.date_of_birth,
      postcode: row.postcode,
    },
  };
}

interface SubjectRow {
  link_id: string;
  organization_id: string;
  debt_id: string;
  debtor_id: string;
  external_account_id: string;
  last_name: string;
  date_of_birth: string | null;
  postcode: string | null;
}

/** The form's factors for a token: its debtor's, or (an unknown token) the pair a debtor with no data is asked. */
export async function factorsForToken(db: Db, token: string): Promise<[Factor, Factor]> {
  const subject = await findLinkSubject(db, token, { live: false });
  const expected = subject?.expected;
  return askedFactors({ dateOfBirth: Boolean(expected?.dateOfBirth), postcode: Boolean(expected?.postcode) });
}
