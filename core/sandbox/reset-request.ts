/**
 * "Reset my sandbox now", the one way both doors ask for it (`POST /v1/sandbox/reset` and the console's Sandbox page):
 * the request is put on record first, then the tenant's reset workflow is signalled; a signal that fails takes the
 * record back and is a `503` to retry, so `Requested` is never shown for a reset nobody will make.
 * The answer is where the reset stands, as `GET /v1/sandbox/reset` reports it.
 */
import type { Db } from '../platform/db';
import { ApiError } from '../platform/errors';
import { readResetFacts, recordResetRequest, resetStatusOf, type SandboxResetStatus } from './reset-status';
import type { SandboxResets } from './resets';

/** The tenant's reset status now; its organisation is the caller's own, so it exists. */
export async function sandboxResetStatus(db: Db, organizationId: string): Promise<SandboxResetStatus> {
  const facts = await readResetFacts(db, organizationId);
  if (!facts) throw new ApiError('not_found', 'Your organisation no longer exists.');
  return resetStatusOf(facts, new Date());
}

/** Asks for the reset (no transaction around it: the signal is the change) and answers where it stands. */
export async function requestSandboxReset(
  deps: { db: Db; resets: SandboxResets | undefined },
  organizationId: string,
): Promise<SandboxResetStatus> {
  const { db, resets } = deps;
  if (!resets) throw new ApiError('service_unavailable', 'Sandbox resets are not available on this host.');
  // On record before the signal: the reset cannot commit before its request is, so `Requested` never lingers after
  // it (nor shows for a signal that failed: the record is taken back).
  const takeBack = await recordResetRequest(db, organizationId);
  try {
    await resets.resetNow(organizationId);
  } catch {
    await takeBack().catch(() => undefined);
    throw new ApiError('service_unavailable', 'The reset could not be asked for; retry shortly.', {
      headers: { 'Retry-After': '2' },
    });
  }
  return sandboxResetStatus(db, organizationId);
}
