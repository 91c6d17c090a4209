/**
 * A sandbox tenant's reset as its client sees it (`GET /v1/sandbox/reset`): the last use, the next
 * idle reset and the last reset, from the database only. The reset workflow holds the same facts, but a query to it
 * would put Temporal on a read's path; these columns are written where the facts arise:
 * - the last use: the latest `last_used_at` of the tenant's keys (key-auth.ts records it, to the minute), which is
 *   what the workflow's debounced `used` signals also follow (DECISIONS.md §6);
 * - a reset asked for: `sandbox_reset_requested_at`, written before `POST /v1/sandbox/reset` signals the workflow
 *   (and put back if the signal fails), so no reset can commit before its request is on record;
 * - the last reset: `sandbox_reset_at`, the start of the transaction that wiped and reseeded (reset-tenant.ts).
 */
import type { Db, Trx } from '../platform/db';

/** A tenant is reset after 7 days without an authenticated request (spec §8; the workflow's IDLE_PERIOD_MS). */
export const SANDBOX_IDLE_DAYS = 7;
const IDLE_PERIOD_MS = SANDBOX_IDLE_DAYS * 86_400_000;

/** `Requested`: a reset was asked for and has not committed yet. `Scheduled`: none is; the next is `nextResetAt`. */
export type SandboxResetState = 'Requested' | 'Scheduled';

export interface SandboxResetStatus {
  status: SandboxResetState;
  lastUsedAt: string;
  /** When the tenant's data will be reset if none of its keys is used until then. */
  nextResetAt: string;
  lastResetAt: string | null;
}

/** The facts as stored; `lastKeyUse` is null while no key has been recorded as used. */
export interface ResetFacts {
  createdAt: Date;
  lastKeyUse: Date | null;
  requestedAt: Date | null;
  resetAt: Date | null;
}

/**
 * The status at `now`, the moment of the request asking: that request is itself a use. After an idle reset the
 * workflow waits for the next use, and this one is it, though its key's record may not be written yet: a last use
 * older than the last reset is this request's.
 */
export function resetStatusOf(facts: ResetFacts, now: Date): SandboxResetStatus {
  const recorded = Math.max(facts.createdAt.getTime(), facts.lastKeyUse?.getTime() ?? 0);
  const lastUsed = facts.resetAt && facts.resetAt.getTime() > recorded ? now.getTime() : recorded;
  const requested = facts.requestedAt !== null && (facts.resetAt === null || facts.requestedAt > facts.resetAt);
  return {
    status: requested ? 'Requested' : 'Scheduled',
    lastUsedAt: new Date(lastUsed).toISOString(),
    nextResetAt: new Date(lastUsed + IDLE_PERIOD_MS).toISOString(),
    lastResetAt: facts.resetAt?.toISOString() ?? null,
  };
}

export async function readResetFacts(db: Db, organizationId: string): Promise<ResetFacts | undefined> {
  const row = await db('organizations')
    .where({ id: organizationId })
    .first<
      { created_at: Date; last_key_use: Date | null; requested_at: Date | null; reset_at: Date | null } | undefined
    >(
      'created_at',
      'sandbox_reset_requested_at as requested_at',
      'sandbox_reset_at as reset_at',
      db.raw('(select max(last_used_at) from api_keys where organization_id = organizations.id) as last_key_use'),
    );
  if (!row) return undefined;
  return {
    createdAt: row.created_at,
    lastKeyUse: row.last_key_use,
    requestedAt: row.requested_at,
    resetAt: row.reset_at,
  };
}

/**
 * Records a reset asked for now (the database's clock, as the reset's own record uses). Returns how to take it back
 * when the workflow could not be told: only if no later request has replaced it meanwhile.
 */
export async function recordResetRequest(db: Db, organizationId: string): Promise<() => Promise<void>> {
  const result = await db.raw<{ rows: { previous: Date | null; requested: Date }[] }>(
    `update organizations o set sandbox_reset_requested_at = clock_timestamp()
       from (select sandbox_reset_requested_at as previous from organizations where id = ?) p
      where o.id = ?
      returning p.previous, o.sandbox_reset_requested_at as requested`,
    [organizationId, organizationId],
  );
  const row = result.rows[0];
  return async () => {
    if (!row) return;
    await db('organizations')
      .where({ id: organizationId, sandbox_reset_requested_at: row.requested })
      .update({ sandbox_reset_requested_at: row.previous });
  };
}

/** In the reset's transaction: its start is when the data was wiped, so a request after it is still owed a reset. */
export async function recordResetDone(trx: Trx, organizationId: string): Promise<void> {
  await trx('organizations')
    .where({ id: organizationId })
    .update({ sandbox_reset_at: trx.fn.now(3) });
}
