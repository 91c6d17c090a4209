/**
 * One sandbox tenant's idle reset (DECISIONS.md §6): `sandbox-reset-<orgId>` on the `sandbox` task queue.
 *
 * Its first run starts the workflows of the tenant's open debts (the seed's). Armed from its start (sign-up is a
 * use), it waits until 7 days have passed since the tenant's last use; each `used` signal (the API's, debounced to
 * one a minute per tenant) moves that moment. When it arrives, one activity wipes the tenant and reseeds it; the
 * workflow then stays disarmed until the next use, so an idle tenant is reset once, not every week. `resetNow`
 * (POST /v1/sandbox/reset) resets at once and counts as a use. After every reset, and whenever history grows, the
 * workflow continues as new with its facts (last use, armed, last reset), so its history stays small.
 * The `status` query answers the last use and the planned reset (null while disarmed).
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SandboxResetActivities } from '../activities/sandbox-reset';
import { QUERIES, SANDBOX_RESET_SIGNALS, SEARCH_ATTRIBUTE_KEYS } from '../core/temporal/names';

/** A tenant is idle after 7 days without an authenticated request (spec §8). */
export const IDLE_PERIOD_MS = 7 * 86_400_000;
const HISTORY_LIMIT = 1_000;

export interface SandboxResetInput {
  organizationId: string;
  /**
   * Set by continue-as-new; a first run is armed from its start. `resetRequested`: a `resetNow` that arrived while a
   * reset ran, still owed (absent in runs recorded before it was carried).
   */
  carried?: { lastUsedAt: number; armed: boolean; lastResetAt: number | null; resetRequested?: boolean };
}

export interface SandboxResetStatus {
  organizationId: string;
  /** The last use the workflow heard of (ISO 8601). */
  lastUsedAt: string;
  /** When the tenant will be reset if it stays idle; null while disarmed (reset already, waiting for a use). */
  resetAt: string | null;
  lastResetAt: string | null;
  /** True while the reset activity runs. */
  resetting: boolean;
}

export const usedSignal = defineSignal(SANDBOX_RESET_SIGNALS.used);
export const resetNowSignal = defineSignal(SANDBOX_RESET_SIGNALS.resetNow);
export const statusQuery = defineQuery<SandboxResetStatus>(QUERIES.status);

const { resetSandboxTenant, startTenantDebtWorkflows } = proxyActivities<SandboxResetActivities>({
  // Room for a large tenant (20,000 debts: the wipe, then each of their workflows ended); a worker killed mid-reset
  // is noticed sooner, by its missing heartbeat (one after the wipe and after every batch of terminations), and the
  // retried attempt finds its wipe done (the run id recorded with it) and finishes the rest.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  // A database or Temporal outage is waited out: the reset is idempotent, and a tenant must not stay half reset.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function sandboxResetWorkflow(input: SandboxResetInput): Promise<void> {
  const { organizationId } = input;
  let lastUsedAt = input.carried?.lastUsedAt ?? Date.now();
  let armed = input.carried?.armed ?? true;
  let lastResetAt = input.carried?.lastResetAt ?? null;
  let resetRequested = input.carried?.resetRequested ?? false;
  let resetting = false;
  /** Bumped by every signal, so a wait wakes up and recomputes its deadline. */
  let revision = 0;

  const use = () => {
    lastUsedAt = Date.now();
    armed = true;
    revision++;
  };
  setHandler(usedSignal, use);
  setHandler(resetNowSignal, () => {
    resetRequested = true;
    use();
  });
  setHandler(statusQuery, () => ({
    organizationId,
    lastUsedAt: new Date(lastUsedAt).toISOString(),
    resetAt: armed ? new Date(lastUsedAt + IDLE_PERIOD_MS).toISOString() : null,
    lastResetAt: lastResetAt === null ? null : new Date(lastResetAt).toISOString(),
    resetting,
  }));
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: organizationId }]);

  async function reset(): Promise<void> {
    resetting = true;
    await resetSandboxTenant(organizationId);
    resetting = false;
    lastResetAt = Date.now();
  }

  /** Waits for the next signal, or until the tenant has been idle for the idle period; true when it has. */
  async function idleReached(): Promise<boolean> {
    const seen = revision;
    const woken = () => revision !== seen;
    if (!armed) return (await condition(woken), false);
    const left = lastUsedAt + IDLE_PERIOD_MS - Date.now();
    return left <= 0 || !(await condition(woken, left));
  }

  // A tenant's first run (at sign-up, or on first use of a tenant created otherwise) gives its open debts their
  // lifecycle workflows: sign-up seeded rows without events, so nothing else starts them.
  if (!input.carried) await startTenantDebtWorkflows(organizationId);

  for (;;) {
    let didReset = false;
    if (resetRequested) {
      resetRequested = false;
      await reset();
      didReset = true;
    } else if (await idleReached()) {
      armed = false; // a use during the reset arms it again
      await reset();
      didReset = true;
    }
    if (didReset || workflowInfo().historyLength > HISTORY_LIMIT || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof sandboxResetWorkflow>({
        organizationId,
        // A resetNow received during the reset that just ran asked for one after it: the next run owes it.
        carried: { lastUsedAt, armed, lastResetAt, ...(resetRequested ? { resetRequested } : {}) },
      });
    }
  }
}
