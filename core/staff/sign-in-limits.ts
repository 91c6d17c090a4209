/**
 * How often sign-in links may be asked for. The limits must stop a requester, not the person the link is for: a
 * per-email count of anonymous requests let anyone keep an owner out with six POSTs an hour. So:
 * - per (email, client address): one requester asking for one address;
 * - per client address: one requester asking for many addresses;
 * both answered with the 429 page, which says nothing about the address (it is the requester's own count);
 * - per email, whoever asks, over 15 minutes (a link's life): a cap on the mail one inbox gets. Past it the answer is
 *   the usual "check your email" and nothing is sent. It is no lockout: the link mailed last before the cap was hit
 *   is less than 15 minutes old for as long as the window lasts, so the inbox always holds a working link.
 * Only requests within the requester's limits count toward the email's cap, so refused requests cannot spend it.
 * Every key starts with the host's mode.
 */
import { createHash } from 'node:crypto';
import { chargeWindow, limitKey } from '../platform/fixed-window';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';

const HOUR_MS = 3_600_000;
/** The email's window: a sign-in link's life (magic-links.ts SIGN_IN_LINK_TTL_MS). */
export const EMAIL_WINDOW_MS = 15 * 60_000;

export interface SignInLimits {
  /** Per (email, client address), per hour. */
  perEmailAndAddress: number;
  /** Per client address, per hour. */
  perAddress: number;
  /** Links mailed to one email per 15 minutes. */
  perEmail: number;
}

/** `requester-limited`: the 429 page; `email-capped`: the usual answer, no mail; `allowed`: mail if known. */
export type SignInLimitDecision = 'allowed' | 'requester-limited' | 'email-capped';

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

export async function chargeSignInRequest(
  deps: { redis: Redis; mode: Mode; limits: SignInLimits },
  email: string,
  clientAddress: string,
): Promise<SignInLimitDecision> {
  const { redis, mode, limits } = deps;
  const key = (...parts: string[]) => limitKey(mode, 'console', 'sign-in', ...parts);
  const [pair, address] = await Promise.all([
    chargeWindow(redis, key('email-address', digest(`${email}\n${clientAddress}`)), {
      limit: limits.perEmailAndAddress,
      windowMs: HOUR_MS,
    }),
    chargeWindow(redis, key('address', clientAddress), { limit: limits.perAddress, windowMs: HOUR_MS }),
  ]);
  if (!pair.allowed || !address.allowed) return 'requester-limited';
  const inbox = await chargeWindow(redis, key('email', digest(email)), {
    limit: limits.perEmail,
    windowMs: EMAIL_WINDOW_MS,
  });
  return inbox.allowed ? 'allowed' : 'email-capped';
}
