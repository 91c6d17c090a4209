/**
 * The portal's second factor (docs/portal.md "Getting in"): before anything about the debt is
 * shown, the visitor who opened a link types the creditor's account reference for the debt and the debtor's surname.
 * The link proves access to the mailbox it was sent to; these prove knowledge of the account, which someone who only
 * reads that mailbox need not have, and they work for every debtor (one with no email address included).
 *
 * A wrong answer, an unknown link and a revoked link all answer `no_match`, so the portal says the same for each.
 * Tries are counted per link (its token's hash, known or not) and per client address over an hour, *before* the
 * answers are judged, in one atomic step (a Lua script): N answers sent at once take N tries, so no more than the
 * limit are ever judged; past either limit nothing is checked and the answer is `too_many`. A right answer gives its
 * try back. Counting needs Redis: if it is unreachable this throws (the portal fails closed; the API's rate limits
 * fail open, but these guard a debtor's data).
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

/**
 * Takes a try from each budget (KEYS, with their limits in ARGV and the window last), starting a key's window with its
 * first try; answers 1 when every budget was still within its limit, 0 when one was spent already.
 */
const TAKE_TRY = `
local within = 1
local window = ARGV[#ARGV]
for i, key in ipairs(KEYS) do
  local tries = redis.call('INCR', key)
  if tries == 1 then redis.call('PEXPIRE', key, window) end
  if tries > tonumber(ARGV[i]) then within = 0 end
end
return within`;

/** Gives back a try taken by a right answer (a key whose window ended meanwhile is left alone). */
const GIVE_BACK = `
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('DECR', key) end
end
return 0`;

function budgets(deps: SecondFactorDeps, input: SecondFactorInput): { keys: string[]; limits: number[] } {
  return {
    keys: [linkKey(input.token), addressKey(input.clientAddress)],
    limits: [deps.triesPerLinkPerHour, deps.triesPerAddressPerHour],
  };
}

async function takeTry(deps: SecondFactorDeps, input: SecondFactorInput): Promise<boolean> {
  const { keys, limits } = budgets(deps, input);
  return (await deps.redis.eval(TAKE_TRY, keys.length, ...keys, ...limits, TRY_WINDOW_MS)) === 1;
}

async function giveTryBack(deps: SecondFactorDeps, input: SecondFactorInput): Promise<void> {
  const { keys } = budgets(deps, input);
  await deps.redis.eval(GIVE_BACK, keys.length, ...keys);
}

export async function verifySecondFactor(
  deps: SecondFactorDeps,
  input: SecondFactorInput,
): Promise<SecondFactorResult> {
  if (!(await takeTry(deps, input))) return { ok: false, reason: 'too_many' };
  const link = await resolvePortalLink(deps.db, input.token);
  const debt = link ? await findDebtRow(deps.db, link.organizationId, link.debtId) : undefined;
  const debtor = link && debt ? await getDebtor(deps.db, link.organizationId, debt.debtor_id) : undefined;
  // Both answers are always compared, so a right reference with a wrong surname takes as long as two wrong ones.
  const referenceOk = sameAnswer(debt?.external_account_id ?? '', input.accountReference);
  const surnameOk = sameAnswer(debtor?.lastName ?? '', input.surname);
  if (link && debt && debtor && referenceOk && surnameOk) {
    await giveTryBack(deps, input);
    return { ok: true, link, debtorId: debtor.id };
  }
  return { ok: false, reason: 'no_match' };
}
