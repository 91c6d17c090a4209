/**
 * How many invitations an organisation may send, and one address may receive. An invitation is mail from our domain
 * to an address the inviter chooses, and anyone can own a sandbox organisation, so without a limit the sandbox is a
 * free mail cannon (and, since an address belongs to one organisation, a way to test addresses for accounts).
 * Every attempt that reaches the limits counts, refused ones too. Keys start with the host's mode.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../platform/errors';
import { chargeWindow, limitKey } from '../platform/fixed-window';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';

const DAY_MS = 86_400_000;

/** Per day. Production's teams are invited by their owners, not by strangers: room for a large team's onboarding. */
export const INVITATION_LIMITS: Record<Mode, { perOrganization: number; perAddress: number }> = {
  production: { perOrganization: 100, perAddress: 3 },
  sandbox: { perOrganization: 20, perAddress: 3 },
};

/** Counts one invitation by `organizationId` to `email`; past either limit, 429 with `Retry-After`. */
export async function chargeInvitation(
  deps: { redis: Redis; mode: Mode },
  organizationId: string,
  email: string,
): Promise<void> {
  const limits = INVITATION_LIMITS[deps.mode];
  const key = (...parts: string[]) => limitKey(deps.mode, 'console', 'invitations', ...parts);
  const emailHash = createHash('sha256').update(email).digest('hex');
  const [byOrganization, byAddress] = await Promise.all([
    chargeWindow(deps.redis, key('organization', organizationId), { limit: limits.perOrganization, windowMs: DAY_MS }),
    chargeWindow(deps.redis, key('address', emailHash), { limit: limits.perAddress, windowMs: DAY_MS }),
  ]);
  if (!byOrganization.allowed) {
    throw refused(`Your organisation has sent its ${limits.perOrganization} invitations for today.`, byOrganization);
  }
  if (!byAddress.allowed) throw refused('That address has been invited too often today.', byAddress);
}

function refused(what: string, window: { retryAfterSeconds: number }): ApiError {
  const hours = Math.ceil(window.retryAfterSeconds / 3600);
  return new ApiError('rate_limited', `${what} Try again in ${hours} hour${hours === 1 ? '' : 's'}.`, {
    headers: { 'Retry-After': String(window.retryAfterSeconds) },
  });
}
