/**
 * A console session's user as `staff_users` has them now. A session carries the role it was signed in with, and
 * ending a removed or demoted user's sessions is a Redis write after the database's commit, which can fail; so each
 * console request re-reads the membership, and a user no longer in `staff_users` is signed out while one whose role
 * changed acts with the new role. The answer is cached in this process for a few seconds (one lookup per user per
 * TTL, not per request); a change made here drops the user's entry at once, one made by another process (or by SQL)
 * is seen within the TTL.
 */
import type { Db } from '../platform/db';
import { findStaffUser, type StaffRole } from './staff-users';

export const MEMBERSHIP_TTL_MS = 5_000;
/** Entries kept at most; past it the cache starts afresh (a few seconds' lookups, no unbounded growth). */
const MAX_ENTRIES = 10_000;

export interface Membership {
  email: string;
  role: StaffRole;
  /** The organisation's name, which every console page says in its header and title. */
  organizationName: string;
}

export interface MembershipCache {
  /** The user's membership of the organisation now (within the TTL), or null when they are not in it. */
  current(organizationId: string, userId: string): Promise<Membership | null>;
  /** Forgets the user: the next request reads `staff_users` (after a role change or a removal). */
  invalidate(userId: string): void;
}

export function createMembershipCache(deps: { db: Db; now?: () => number; ttlMs?: number }): MembershipCache {
  const now = deps.now ?? Date.now;
  const ttlMs = deps.ttlMs ?? MEMBERSHIP_TTL_MS;
  const entries = new Map<string, { organizationId: string; membership: Membership | null; expiresAt: number }>();
  // A read that began before an invalidation may have seen the old row: it answers, but is not cached.
  let invalidations = 0;
  return {
    async current(organizationId, userId) {
      const cached = entries.get(userId);
      if (cached && cached.organizationId === organizationId && cached.expiresAt > now()) return cached.membership;
      const seen = invalidations;
      const user = await findStaffUser(deps.db, organizationId, userId);
      const organization = user
        ? await deps.db('organizations').where({ id: organizationId }).first<{ name: string } | undefined>('name')
        : undefined;
      const membership =
        user && organization ? { email: user.email, role: user.role, organizationName: organization.name } : null;
      if (seen !== invalidations) return membership;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(userId, { organizationId, membership, expiresAt: now() + ttlMs });
      return membership;
    },
    invalidate(userId) {
      invalidations += 1;
      entries.delete(userId);
    },
  };
}
