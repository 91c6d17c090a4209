/**
 * Console sessions, kept in Redis by the shared session store (core/platform/redis-sessions.ts): an opaque id in a
 * cookie, the session under the id's hash, an idle timeout and an absolute lifetime, each user's sessions indexed so
 * "sign out everywhere" (and a removed user) ends them all at once, and a CSRF synchronizer token per session. Keys
 * start with the host's mode: both hosts share one Redis, and a browser sends a cookie of `localhost:3000` to
 * `localhost:3001` too (cookies ignore the port), so a production session must not be one on the sandbox host.
 */
import { createRedisSessionStore, type SessionBasics, type SessionSettings } from '../platform/redis-sessions';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';
import type { StaffRole } from './staff-users';

export { csrfTokensMatch, type SessionSettings } from '../platform/redis-sessions';

export interface SessionUser {
  userId: string;
  organizationId: string;
  email: string;
  role: StaffRole;
}

export interface StaffSession extends SessionUser, SessionBasics {}

export interface SessionStore {
  /** A new session (a new id) for a user just signed in; returns the cookie's value. */
  create(user: SessionUser): Promise<string>;
  /** The live session for a cookie value, its idle timer pushed back; null if unknown, idle too long or too old. */
  touch(id: string): Promise<StaffSession | null>;
  destroy(id: string): Promise<void>;
  /** Ends every session of the user (sign out everywhere, removal, role change). */
  destroyAllFor(userId: string): Promise<void>;
}

export function createSessionStore(deps: {
  redis: Redis;
  mode: Mode;
  settings: SessionSettings;
  now?: () => number;
}): SessionStore {
  const { mode, ...rest } = deps;
  return createRedisSessionStore<SessionUser>({
    ...rest,
    prefix: `${mode}:console`,
    ownerOf: (user) => user.userId,
  });
}
