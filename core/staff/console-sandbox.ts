/**
 * The console's sandbox writes (sandbox host only): sign-up, "Reset sandbox now" and a debt's simulations.
 * Each reuses the API's own path: sign-up is `signUpSandboxTenant` (the seeded tenant and its first test key) plus the
 * owner who signs up, in one transaction; the reset is `requestSandboxReset`; a simulation runs through the lifecycle's
 * triggers. The role check comes first; each is in the audit log, recorded once the change is (a simulation and a
 * reset are the workflows' own writes, which the console cannot join, so their entries follow the workflow's answer).
 */
import type { ApiKey } from '../access/api-keys';
import type { Organization } from '../access/organizations';
import type { Debt } from '../debts/debts';
import type { DocumentStore } from '../documents/store';
import { runSimulation, type Simulation } from '../lifecycle/simulations';
import type { AdvanceOutcome, DebtTriggers } from '../lifecycle/triggers';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { requestSandboxReset } from '../sandbox/reset-request';
import type { SandboxResetStatus } from '../sandbox/reset-status';
import type { SandboxResets } from '../sandbox/resets';
import { signUpSandboxTenant } from '../sandbox/signup';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requireSandboxTesting } from './roles';
import { createStaffUser, isPlausibleEmail, normalizeEmail, StaffEmailTakenError, type StaffUser } from './staff-users';

export interface ConsoleSignup {
  organization: Organization;
  owner: StaffUser;
  apiKey: ApiKey;
  /** The first test key in full: shown once, on the page that answers the sign-up. */
  secret: string;
}

/**
 * A sandbox tenant with the seed and its first test key (as `POST /sandbox/signup` makes), and its owner, the person
 * signing up, once they have confirmed the sign-up from their mail (signup-requests.ts). An address that has a
 * console account by then (another of its links confirmed first) is refused, and nothing is created.
 */
export async function signUpConsoleSandbox(
  deps: { db: Db; documents?: DocumentStore },
  input: { organizationName?: string; email: string },
): Promise<ConsoleSignup> {
  const email = normalizeEmail(input.email);
  if (!isPlausibleEmail(email)) {
    throw errors.invalidRequest('Enter the email address you will sign in with.', [
      { path: 'body.email', message: 'must be an email address' },
    ]);
  }
  return deps.db
    .transaction(async (trx) => {
      const signup = await signUpSandboxTenant(trx, { organizationName: input.organizationName }, deps.documents);
      const { organization, apiKey, secret } = signup;
      const owner = await createStaffUser(trx, organization.id, { email, role: 'owner' });
      await recordAudit(trx, { userId: owner.id, organizationId: organization.id, email, role: 'owner' }, 'sandbox', {
        action: 'sandbox.signed_up',
        target: organization.id,
        details: { organizationName: organization.name, keyPrefix: apiKey.prefix },
      });
      return { organization, owner, apiKey, secret };
    })
    .catch((error: unknown) => {
      if (!(error instanceof StaffEmailTakenError)) throw error;
      throw errors.invalidRequest('That address already has a console account: sign in with it instead.', [
        { path: 'body.email', message: 'already has a console account' },
      ]);
    });
}

/** "Reset sandbox now": where the reset stands once the tenant's workflow has the request. */
export async function requestConsoleSandboxReset(
  deps: { db: Db; resets: SandboxResets | undefined },
  actor: StaffActor,
  mode: Mode,
): Promise<SandboxResetStatus> {
  requireSandboxTesting(actor.role, mode);
  const status = await requestSandboxReset(deps, actor.organizationId);
  await recordAudit(deps.db, actor, mode, { action: 'sandbox.reset_requested' });
  return status;
}

/**
 * Plays `simulation` on the organisation's debt through the triggers on behalf of the console request `requestId`
 * (its events carry it); a refusal is the lifecycle's own `invalid_state` or `invalid_request`.
 */
export async function simulateConsoleDebt(
  deps: { db: Db; triggers: DebtTriggers },
  actor: StaffActor,
  mode: Mode,
  debtId: string,
  simulation: Simulation,
  requestId: string,
): Promise<{ debt: Debt; fired?: AdvanceOutcome['fired'] }> {
  requireSandboxTesting(actor.role, mode);
  const outcome = await runSimulation(deps.triggers.forRequest(requestId), actor.organizationId, debtId, simulation);
  await recordAudit(deps.db, actor, mode, {
    action: 'debt.simulated',
    target: outcome.debt.id,
    details: { simulation: simulation.action, status: outcome.debt.status },
  });
  return outcome;
}
