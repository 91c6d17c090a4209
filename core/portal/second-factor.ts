/**
 * The portal's second factor (docs/portal.md "The second factor"): before anything about the debt is shown, the
 * visitor who opened a link answers two questions about the debtor: date of birth and postcode when the client
 * supplied both, else the one supplied and the surname, else the account reference and the surname (asked-factors.ts).
 * The link proves access to the mailbox it was sent to; these prove knowledge no email of ours carries, and they work
 * for every debtor (one with no email address included).
 *
 * A wrong answer, an unknown link and a revoked link all answer `no_match`, so the portal says the same for each.
 * Tries are counted per link (its token's hash, known or not) and per client address over an hour, *before* the
 * answers are judged, in one atomic step (a Lua script): N answers sent at once take N tries, so no more than the
 * limit are ever judged; past either limit nothing is checked and the answer is `too_many`. A right answer gives its
 * try back. Counting needs Redis: if it is unreachable this throws (the portal fails closed; the API's rate limits
 * fail open, but these guard a debtor's data).
 */
import type { Db } from '../platform/db';
import { limitKey } from '../platform/fixed-window';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';
import { answersMatch, findLinkSubject, type Answers } from './asked-factors';
import { hashPortalToken, type ResolvedPortalLink } from './links';

export { normalizeAnswer } from './asked-factors';

export const TRY_WINDOW_MS = 3_600_000;

export interface SecondFactorDeps {
  db: Db;
  redis: Redis;
  /** The host's mode: its tries are counted apart from the other host's (they share one Redis). */
  mode: Mode;
  triesPerLinkPerHour: number;
  triesPerAddressPerHour: number;
}

export interface SecondFactorInput {
  token: string;
  clientAddress: string;
  answers: Answers;
}

export type SecondFactorResult =
  { ok: true; link: ResolvedPortalLink; debtorId: string } | { ok: false; reason: 'no_match' | 'too_many' };

const linkKey = (mode: Mode, token: string) => limitKey(mode, 'portal', 'verify-fails', 'link', hashPortalToken(token));
const addressKey = (mode: Mode, address: string) => limitKey(mode, 'portal', 'verify-fails', 'address', address);

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
    keys: [linkKey(deps.mode, input.token), addressKey(deps.mode, input.clientAddress)],
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
  const subject = await findLinkSubject(deps.db, input.token, { live: true });
  if (subject && answersMatch(subject, input.answers)) {
    await giveTryBack(deps, input);
    return { ok: true, link: subject.link, debtorId: subject.debtorId };
  }
  return { ok: false, reason: 'no_match' };
}
