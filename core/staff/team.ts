/**
 * The Team page's writes (owners only, checked first): invite a user (the invitation is a sign-in link mailed
 * through the same path as sign-in's), change a role, remove a user. Each write locks the organisation's row, so
 * two owners demoting or removing each other at once cannot leave it without an owner: the last owner can be neither
 * demoted nor removed. Each records its audit entry in its own transaction. Invitations are limited per organisation
 * and per invited address (invitation-limits.ts). A role change or a removal ends the user's sessions after the
 * commit; that Redis write may fail, so what keeps the change is that every console request re-reads the user's
 * membership (membership.ts), whose cached entry is dropped here first.
 */
import type { Mode } from '../platform/config';
import type { Db, Trx } from '../platform/db';
import { ApiError, errors } from '../platform/errors';
import { isUuid } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { Redis } from '../platform/redis';
import { recordAudit } from './audit-log';
import { chargeInvitation } from './invitation-limits';
import type { MembershipCache } from './membership';
import type { StaffActor } from './staff-actor';
import { sendSignInLink, type LinkMailDeps } from './magic-links';
import { requireTeamManagement } from './roles';
import type { SessionStore } from './sessions';
import {
  createStaffUser,
  findStaffUser,
  isPlausibleEmail,
  normalizeEmail,
  StaffEmailTakenError,
  type StaffRole,
  type StaffUser,
} from './staff-users';

export interface TeamDeps {
  db: Db;
  redis: Redis;
  logger: Logger;
  sessions: SessionStore;
  membership: Pick<MembershipCache, 'invalidate'>;
  mail: LinkMailDeps;
}

/**
 * After a change's commit: the user's cached membership is dropped (their next request here reads the change), then
 * their sessions are ended. A failure to end them is logged, not thrown: the change is made, and the membership check
 * refuses or re-roles the sessions anyway.
 */
async function endSessions(deps: TeamDeps, userId: string): Promise<void> {
  deps.membership.invalidate(userId);
  await deps.sessions.destroyAllFor(userId).catch((err: unknown) => {
    deps.logger.warn({ err: (err as Error).message, userId }, 'could not end the sessions of a changed user');
  });
}

const lastOwner = () =>
  new ApiError('invalid_state', 'An organisation needs an owner: make another user an owner first.');

async function lockOrganization(trx: Trx, organizationId: string): Promise<void> {
  await trx('organizations').where({ id: organizationId }).forUpdate().first('id');
}

async function otherOwners(trx: Trx, organizationId: string, userId: string): Promise<number> {
  const row = await trx('staff_users')
    .where({ organization_id: organizationId, role: 'owner' })
    .whereNot({ id: userId })
    .count<{ count: string }[]>('* as count')
    .first();
  return Number(row?.count ?? 0);
}

/** The organisation's user, in `trx` under the organisation's lock; another organisation's is not found. */
async function teamMember(trx: Trx, organizationId: string, userId: string): Promise<StaffUser> {
  const user = isUuid(userId) ? await findStaffUser(trx, organizationId, userId) : null;
  if (!user) throw errors.notFound('user');
  return user;
}

export type InviteOutcome = { user: StaffUser; mailed: true } | { user: StaffUser; mailed: false; error: unknown };

/**
 * Adds the user and mails the invitation (a sign-in link, 15 minutes, once). The user is added even if the mail
 * cannot be sent: they can ask for a link on the sign-in page with their address; the caller says so.
 */
export async function inviteTeamMember(
  deps: TeamDeps,
  actor: StaffActor,
  mode: Mode,
  input: { email: string; role: StaffRole },
): Promise<InviteOutcome> {
  requireTeamManagement(actor.role);
  const email = normalizeEmail(input.email);
  if (!isPlausibleEmail(email)) {
    throw errors.invalidRequest('Enter the email address of the person to invite.', [
      { path: 'body.email', message: 'must be an email address' },
    ]);
  }
  await chargeInvitation({ redis: deps.redis, mode }, actor.organizationId, email);
  const user = await deps.db
    .transaction(async (trx) => {
      await lockOrganization(trx, actor.organizationId);
      const created = await createStaffUser(trx, actor.organizationId, { email, role: input.role });
      await recordAudit(trx, actor, mode, {
        action: 'user.invited',
        target: created.email,
        details: { role: created.role },
      });
      return created;
    })
    .catch((error: unknown) => {
      if (!(error instanceof StaffEmailTakenError)) throw error;
      // Addresses are unique across organisations: a person belongs to one.
      throw errors.invalidRequest('That address already has a console account; a person belongs to one organisation.', [
        { path: 'body.email', message: 'already has a console account' },
      ]);
    });
  try {
    await sendSignInLink(deps.mail, user, 'invitation');
    return { user, mailed: true };
  } catch (error) {
    return { user, mailed: false, error };
  }
}

export async function changeTeamMemberRole(
  deps: TeamDeps,
  actor: StaffActor,
  mode: Mode,
  userId: string,
  role: StaffRole,
): Promise<{ user: StaffUser; changed: boolean }> {
  requireTeamManagement(actor.role);
  const changed = await deps.db.transaction(async (trx) => {
    await lockOrganization(trx, actor.organizationId);
    const user = await teamMember(trx, actor.organizationId, userId);
    if (user.role === role) return null;
    // A demotion of the last owner; promoting to owner, or moving between other roles, needs no check.
    if (user.role === 'owner' && (await otherOwners(trx, actor.organizationId, user.id)) === 0) throw lastOwner();
    await trx('staff_users').where({ organization_id: actor.organizationId, id: user.id }).update({ role });
    await recordAudit(trx, actor, mode, {
      action: 'user.role_changed',
      target: user.email,
      details: { from: user.role, to: role },
    });
    return { ...user, role };
  });
  if (!changed) return { user: await findTeamMember(deps.db, actor.organizationId, userId), changed: false };
  await endSessions(deps, changed.id);
  return { user: changed, changed: true };
}

export async function removeTeamMember(
  deps: TeamDeps,
  actor: StaffActor,
  mode: Mode,
  userId: string,
): Promise<StaffUser> {
  requireTeamManagement(actor.role);
  const removed = await deps.db.transaction(async (trx) => {
    await lockOrganization(trx, actor.organizationId);
    const user = await teamMember(trx, actor.organizationId, userId);
    if (user.role === 'owner' && (await otherOwners(trx, actor.organizationId, user.id)) === 0) throw lastOwner();
    await trx('staff_users').where({ organization_id: actor.organizationId, id: user.id }).delete();
    await recordAudit(trx, actor, mode, { action: 'user.removed', target: user.email, details: { role: user.role } });
    return user;
  });
  await endSessions(deps, removed.id);
  return removed;
}

/** The user to confirm a removal of, or to show: the organisation's, or not found. */
export async function findTeamMember(db: Db, organizationId: string, userId: string): Promise<StaffUser> {
  const user = isUuid(userId) ? await findStaffUser(db, organizationId, userId) : null;
  if (!user) throw errors.notFound('user');
  return user;
}
