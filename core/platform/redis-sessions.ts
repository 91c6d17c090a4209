/**
 * Sessions kept in Redis, for any kind of signed-in visitor (console staff, debtor portal): the browser holds only an
 * opaque id (32 random bytes) in a cookie; Redis stores the session under the id's SHA-256, so a dump of Redis holds
 * no usable cookie. A session ends after an idle timeout (each use pushes it back) and at its absolute lifetime,
 * whichever comes first. Each owner's sessions are indexed so all of them can be ended at once. A sign-in always
 * makes a new id. Each session carries its CSRF synchronizer token, which the pages' forms echo.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from './redis';

export interface SessionSettings {
  idleTimeoutMs: number;
  absoluteLifetimeMs: number;
}

/** What every session has besides its data. */
export interface SessionBasics {
  csrfToken: string;
  createdAt: number;
  /** The Redis key's suffix (the id's hash): what the owner's index holds. */
  handle: string;
}

export interface RedisSessionStore<T extends object> {
  /** A new session (a new id); returns the cookie's value. */
  create(data: T): Promise<string>;
  /** The live session for a cookie value, its idle timer pushed back; null if unknown, idle too long or too old. */
  touch(id: string): Promise<(T & SessionBasics) | null>;
  destroy(id: string): Promise<void>;
  /** Ends every session of the owner. */
  destroyAllFor(owner: string): Promise<void>;
}

export interface RedisSessionOptions<T> {
  redis: Redis;
  settings: SessionSettings;
  /** Keys are `<prefix>:session:<handle>` and `<prefix>:user-sessions:<owner>`. */
  prefix: string;
  /** Whose session it is, for `destroyAllFor`. */
  ownerOf: (data: T) => string;
  now?: () => number;
}

const ID_FORM = /^[A-Za-z0-9_-]{43}$/;
const handleOf = (id: string) => createHash('sha256').update(id).digest('hex');

export function csrfTokensMatch(expected: string, given: unknown): boolean {
  if (expected.length === 0 || typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

export function createRedisSessionStore<T extends object>(options: RedisSessionOptions<T>): RedisSessionStore<T> {
  const { redis, settings, prefix, ownerOf } = options;
  const now = options.now ?? Date.now;
  const sessionKey = (handle: string) => `${prefix}:session:${handle}`;
  const ownerKey = (owner: string) => `${prefix}:user-sessions:${owner}`;
  /** What is left of the session's life: the idle timeout, cut short by the absolute lifetime. */
  const ttlMs = (createdAt: number) =>
    Math.min(settings.idleTimeoutMs, createdAt + settings.absoluteLifetimeMs - now());

  return {
    async create(data) {
      const id = randomBytes(32).toString('base64url');
      const handle = handleOf(id);
      const session = { ...data, csrfToken: randomBytes(32).toString('base64url'), createdAt: now() };
      await redis
        .multi()
        .set(sessionKey(handle), JSON.stringify(session), 'PX', settings.idleTimeoutMs)
        .sadd(ownerKey(ownerOf(data)), handle)
        .pexpire(ownerKey(ownerOf(data)), settings.absoluteLifetimeMs)
        .exec();
      return id;
    },
    async touch(id) {
      if (!ID_FORM.test(id)) return null;
      const handle = handleOf(id);
      const stored = await redis.get(sessionKey(handle));
      if (!stored) return null;
      const session = JSON.parse(stored) as T & Omit<SessionBasics, 'handle'>;
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
      if (stored) await redis.srem(ownerKey(ownerOf(JSON.parse(stored) as T)), handle);
    },
    async destroyAllFor(owner) {
      const handles = await redis.smembers(ownerKey(owner));
      await redis.del(...handles.map(sessionKey), ownerKey(owner));
    },
  };
}
