/**
 * Console sessions, kept in Redis; the browser holds only an opaque id (32 random bytes) in a cookie. Redis stores
 * the session under the id's SHA-256, so a dump of Redis holds no usable cookie. A session ends after an idle
 * timeout (each use pushes it back) and at its absolute lifetime, whichever comes first; each user's sessions are
 * indexed so "sign out everywhere" (and a removed user) ends them all at once. A sign-in always makes a new id.
 * Each session carries its CSRF synchronizer token, which the console's forms echo.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from '../platform/redis';
import type { StaffRole } from './staff-users';

export interface SessionSettings {
  idleTimeoutMs: number;
  absoluteLifetimeMs: number;
}

export interface SessionUser {
  userId: string;
  organizationId: string;
  email: string;
  role: StaffRole;
}

export interface StaffSession extends SessionUser {
  csrfToken: string;
  createdAt: number;
  /** The Redis key's suffix (the id's hash): what the user's index holds. */
  handle: string;
}

export interface SessionStore {
  /** A new session (a new id) for a user just signed in; returns the cookie's value. */
  create(user: SessionUser): Promise<string>;
  /** The live session for a cookie value, its idle timer pushed back; null if unknown, idle too long or too old. */
  touch(id: string): Promise<StaffSession | null>;
  destroy(id: string): Promise<void>;
  /** Ends every session of the user (sign out everywhere, removal, role change). */
  destroyAllFor(userId: string): Promise<void>;
}

const ID_FORM = /^[A-Za-z0-9_-]{43}$/;
const sessionKey = (handle: string) => `console:session:${handle}`;
const userKey = (userId: string) => `console:user-sessions:${userId}`;
const handleOf = (id: string) => createHash('sha256').update(id).digest('hex');

export function csrfTokensMatch(expected: string, given: unknown): boolean {
  if (expected.length === 0 || typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

export function createSessionStore(deps: {
  redis: Redis;
  settings: SessionSettings;
  now?: () => number;
}): SessionStore {
  const { redis, settings } = deps;
  const now = deps.now ?? Date.now;
  /** What is left of the session's life: the idle timeout, cut short by the absolute lifetime. */
  const ttlMs = (createdAt: number) =>
    Math.min(settings.idleTimeoutMs, createdAt + settings.absoluteLifetimeMs - now());

  return {
    async create(user) {
      const id = randomBytes(32).toString('base64url');
      const handle = handleOf(id);
      const createdAt = now();
      const session = { ...user, csrfToken: randomBytes(32).toString('base64url'), createdAt };
      await redis
        .multi()
        .set(sessionKey(handle), JSON.stringify(session), 'PX', settings.idleTimeoutMs)
        .sadd(userKey(user.userId), handle)
        .pexpire(userKey(user.userId), settings.absoluteLifetimeMs)
        .exec();
      return id;
    },
    async touch(id) {
      if (!ID_FORM.test(id)) return null;
      const handle = handleOf(id);
      const stored = await redis.get(sessionKey(handle));
      if (!stored) return null;
      const session = JSON.parse(stored) as Omit<StaffSession, 'handle'>;
      const ttl = ttlMs(session.createdAt);
      if (ttl <= 0) {
        await redis.del(sessionKey(handle));
        return null;
      }
      await redis.pexpire(sessionKey(handle), ttl);
      return { ...session, handle };
    },
    async destroy(id) {
      if (!ID_FORM.test(id)) return;
      const handle = handleOf(id);
      const stored = await redis.get(sessionKey(handle));
      await redis.del(sessionKey(handle));
      if (stored) await redis.srem(userKey((JSON.parse(stored) as StaffSession).userId), handle);
    },
    async destroyAllFor(userId) {
      const handles = await redis.smembers(userKey(userId));
      await redis.del(...handles.map(sessionKey), userKey(userId));
    },
  };
}
