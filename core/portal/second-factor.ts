/**
 * The portal's second factor (docs/portal.md "Getting in"): before anything about the debt is
 * shown, the visitor who opened a link types the creditor's account reference for the debt and the debtor's surname.
 * The link proves access to the mailbox it was sent to; these prove knowledge of the account, which someone who only
 * reads that mailbox need not have, and they work for every debtor (one with no email address included).
 *
 * A wrong answer, an unknown link and a revoked link all answer `no_match`, so the portal says the same for each.
 * Wrong answers are counted per link (its token's hash, known or not) and per client address over an hour; past
 * either limit nothing is checked and the answer is `too_many`. Counting needs Redis: if it is unreachable this
 * throws (the portal fails closed; the API's rate limits fail open, but these guard a debtor's data).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { findDebtRow } from '../debts/debts';
import { getDebtor } from '../debts/debtors';
import type { Db } from '../platform/db';
import type { Redis } from '../platform/redis';
import { hashPortalToken, resolvePortalLink, type ResolvedPortalLink } from './links';

export const TRY_WINDOW_MS = 3_600_000;

export interface SecondFactorDeps {
  db: Db;
  redis: Redis;
  triesPerLinkPerHour: number;
  triesPerAddressPerHour: number;
}

export interface SecondFactorInput {
  token: string;
  clientAddress: string;
  accountReference: string;
  surname: string;
}

export type SecondFactorResult =
  { ok: true; link: ResolvedPortalLink; debtorId: string } | { ok: false; reason: 'no_match' | 'too_many' };

/** Case, spacing and punctuation do not matter: "ACCT-0001" is "acct 0001", "O'Brien" is "OBRIEN". */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .toLocaleLowerCase('en')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

function sameAnswer(expected: string, given: string): boolean {
  const a = createHash('sha256').update(normalizeAnswer(expected)).digest();
  const b = createHash('sha256').update(normalizeAnswer(given)).digest();
  return normalizeAnswer(given).length > 0 && timingSafeEqual(a, b);
}

const linkKey = (token: string) => `portal:verify-fails:link:${hashPortalToken(token)}`;
const addressKey = (address: string) => `portal:verify-fails:address:${address}`;

async function overLimit(deps: SecondFactorDeps, input: SecondFactorInput): Promise<boolean> {
  const [perLink, perAddress] = await deps.redis.mget(linkKey(input.token), addressKey(input.clientAddress));
  return Number(perLink ?? 0) >= deps.triesPerLinkPerHour || Number(perAddress ?? 0) >= deps.triesPerAddressPerHour;
}

async function countFailure(deps: SecondFactorDeps, input: SecondFactorInput): Promise<void> {
  const multi = deps.redis.multi();
  for (const key of [linkKey(input.token), addressKey(input.clientAddress)]) {
    multi.incr(key).pexpire(key, TRY_WINDOW_MS, 'NX');
  }
  await multi.exec();
}

export async function verifySecondFactor(
  deps: SecondFactorDeps,
  input: SecondFactorInput,
): Promise<SecondFactorResult> {
  if (await overLimit(deps, input)) return { ok: false, reason: 'too_many' };
  const link = await resolvePortalLink(deps.db, input.token);
  const debt = link ? await findDebtRow(deps.db, link.organizationId, link.debtId) : undefined;
  const debtor = link && debt ? await getDebtor(deps.db, link.organizationId, debt.debtor_id) : undefined;
  // Both answers are always compared, so a right reference with a wrong surname takes as long as two wrong ones.
  const referenceOk = sameAnswer(debt?.external_account_id ?? '', input.accountReference);
  const surnameOk = sameAnswer(debtor?.lastName ?? '', input.surname);
  if (link && debt && debtor && referenceOk && surnameOk) return { ok: true, link, debtorId: debtor.id };
  await countFailure(deps, input);
  return { ok: false, reason: 'no_match' };
}
