/**
 * Authenticates `Authorization: Bearer <key>`. Form and mode are checked before any database work; a key's record
 * is cached in memory for at most one second, so a revocation takes effect on every API process within a second
 * while a busy key costs one lookup a second, not one a request.
 *
 * Unauthenticated traffic stays cheap and harmless:
 * - known and unknown keys live in two separate bounded LRU caches, so a flood of random keys evicts only other
 *   random keys, never a valid key's entry;
 * - an unknown key is remembered for a while (negative cache), so repeating it costs no lookup;
 * - an address with too many failed authentications in a window is refused (429) before any lookup, except for a key
 *   already in the known-key cache: a good key is never locked out by failures from its address (a shared NAT, a
 *   proxy, a client spraying wrong keys from it). The address is the client's as `ctx.ip` has it (trusted proxies:
 *   middleware/client-address.ts).
 */
import { LRUCache } from 'lru-cache';
import {
  findApiKeyBySecret,
  hashKeySecret,
  modeOfKeySecret,
  recordKeyUse,
  type ApiKey,
} from '../../core/access/api-keys';
import type { Organization } from '../../core/access/organizations';
import type { AuthContext } from '../../core/access/auth-context';
import type { Scope } from '../../core/access/scopes';
import type { Mode } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { ApiError, errors } from '../../core/platform/errors';
import type { Logger } from '../../core/platform/logger';

export const KEY_CACHE_TTL_MS = 1_000;
const KEY_CACHE_MAX_ENTRIES = 10_000;
/** Unknown keys stay unknown (keys are 240-bit random): remembering one longer only spares lookups. */
export const UNKNOWN_KEY_TTL_MS = 60_000;
const UNKNOWN_KEY_MAX_ENTRIES = 10_000;
/** Failed authentications an address may make per window before it is refused without a lookup. */
export const FAILED_AUTH_LIMIT = 20;
export const FAILED_AUTH_WINDOW_MS = 60_000;
const FAILED_AUTH_MAX_ADDRESSES = 10_000;
/** `last_used_at` is for humans reading `key list`; minute precision spares a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

type Credential = { apiKey: ApiKey; organization: Organization };

export interface KeyAuthenticator {
  /** `address` is the caller's IP address, for the failed-authentication limit. */
  authenticate(authorizationHeader: string | undefined, address?: string): Promise<AuthContext>;
  /**
   * The caller's context when its key is valid and was looked up less than KEY_CACHE_TTL_MS ago, answered without an
   * await (a busy key's every request); undefined otherwise: `authenticate` then decides, refusals included.
   */
  knownContext(authorizationHeader: string | undefined): AuthContext | undefined;
}

export interface KeyAuthOptions {
  db: Db;
  mode: Mode;
  logger: Logger;
  /** Defaults to the database lookup (tests count calls). */
  findKey?: (db: Db, secret: string) => Promise<Credential | undefined>;
  /** Defaults to Date.now (tests move time). */
  now?: () => number;
  /** Failed authentications per address and window; defaults to FAILED_AUTH_LIMIT. */
  failedAuthLimit?: number;
}

export function createKeyAuthenticator(options: KeyAuthOptions): KeyAuthenticator {
  const { db, mode, logger } = options;
  const findKey = options.findKey ?? findApiKeyBySecret;
  const now = options.now ?? Date.now;
  const failedAuthLimit = options.failedAuthLimit ?? FAILED_AUTH_LIMIT;
  const known = new LRUCache<string, { credential: Credential; expiresAt: number }>({ max: KEY_CACHE_MAX_ENTRIES });
  const unknown = new LRUCache<string, number>({ max: UNKNOWN_KEY_MAX_ENTRIES });
  const failures = new LRUCache<string, { count: number; resetAt: number }>({ max: FAILED_AUTH_MAX_ADDRESSES });
  const lastUseRecorded = new Map<string, number>();
  const expectedPrefix = mode === 'production' ? 'ak_live_' : 'ak_test_';

  /** The cached credential of a key looked up less than KEY_CACHE_TTL_MS ago: no await on a busy key's path. */
  function freshlyCached(cacheKey: string): Credential | undefined {
    const hit = known.get(cacheKey);
    return hit && hit.expiresAt > now() ? hit.credential : undefined;
  }

  async function lookup(secret: string, cacheKey: string): Promise<Credential | undefined> {
    const at = now();
    if ((unknown.get(cacheKey) ?? 0) > at) return undefined;
    const credential = await findKey(db, secret);
    if (credential) {
      known.set(cacheKey, { credential, expiresAt: at + KEY_CACHE_TTL_MS });
      unknown.delete(cacheKey);
    } else {
      known.delete(cacheKey);
      unknown.set(cacheKey, at + UNKNOWN_KEY_TTL_MS);
    }
    return credential;
  }

  /** Whether the key is in the known-key cache (fresh or not): it was valid when last looked up. */
  function isKnownKey(cacheKey: string): boolean {
    return known.has(cacheKey);
  }

  /** Refuses an address over its failure budget, before any lookup. */
  function checkAddress(address: string | undefined): void {
    const state = address === undefined ? undefined : failures.get(address);
    if (!state || state.resetAt <= now() || state.count < failedAuthLimit) return;
    const retryAfter = Math.max(1, Math.ceil((state.resetAt - now()) / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many failed authentications from your address; retry in ${retryAfter} seconds.`,
      {
        headers: { 'Retry-After': String(retryAfter) },
      },
    );
  }

  function recordFailure(address: string | undefined): void {
    if (address === undefined) return;
    const at = now();
    const state = failures.get(address);
    if (!state || state.resetAt <= at) failures.set(address, { count: 1, resetAt: at + FAILED_AUTH_WINDOW_MS });
    else state.count += 1;
  }

  function noteUse(key: ApiKey): void {
    const at = now();
    if (at - (lastUseRecorded.get(key.id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    lastUseRecorded.set(key.id, at);
    recordKeyUse(db, key.id, new Date(at)).catch((err: unknown) =>
      logger.warn({ err: (err as Error).message, keyId: key.id }, 'could not record key use'),
    );
  }

  /** The key's secret, once its form and mode are right: before any lookup. */
  function secretOf(header: string | undefined): string {
    if (!header) {
      throw errors.unauthenticated('Missing Authorization header: send `Authorization: Bearer <API key>`.', false);
    }
    const match = /^Bearer +(\S+)$/i.exec(header.trim());
    if (!match) throw errors.unauthenticated('Malformed Authorization header: expected `Bearer <API key>`.');
    const secret = match[1]!;
    const keyMode = modeOfKeySecret(secret);
    if (!keyMode) throw errors.unauthenticated('Malformed API key.');
    if (keyMode !== mode) throw errors.unauthenticated(`This host accepts only ${expectedPrefix} keys.`);
    return secret;
  }

  function identified(credential: Credential | undefined): Credential {
    const key = credential?.apiKey;
    if (!credential || !key || key.mode !== mode) throw errors.unauthenticated('Unknown API key.');
    if (key.revokedAt) throw errors.unauthenticated('This API key has been revoked.');
    return credential;
  }

  /** Built once per cached credential (at most once a second per key), not once per request: it is on every request's path. */
  const contexts = new WeakMap<Credential, AuthContext>();
  function contextOf(credential: Credential): AuthContext {
    let context = contexts.get(credential);
    if (!context) {
      const key = credential.apiKey;
      context = Object.freeze({
        organizationId: key.organizationId,
        organization: credential.organization,
        keyId: key.id,
        mode: key.mode,
        scopes: new Set<Scope>(key.scopes),
        readOnly: key.readOnly,
        hourlyLimit: key.hourlyLimit,
        dailyLimit: key.dailyLimit,
      });
      contexts.set(credential, context);
    }
    return context;
  }

  return {
    knownContext(header) {
      let secret: string;
      try {
        secret = secretOf(header);
      } catch {
        return undefined; // `authenticate` refuses it, with the failure counted
      }
      const credential = freshlyCached(hashKeySecret(secret));
      if (!credential || credential.apiKey.mode !== mode || credential.apiKey.revokedAt) return undefined;
      noteUse(credential.apiKey);
      return contextOf(credential);
    },
    async authenticate(header, address) {
      let credential: Credential;
      try {
        const secret = secretOf(header);
        const cacheKey = hashKeySecret(secret);
        // A key this process has already seen valid is never refused by its address's failures: a neighbour behind
        // the same address (or a client guessing at it) cannot lock a good key out.
        if (!isKnownKey(cacheKey)) checkAddress(address);
        credential = identified(freshlyCached(cacheKey) ?? (await lookup(secret, cacheKey)));
      } catch (err) {
        if (err instanceof ApiError && err.code === 'unauthenticated') {
          checkAddress(address); // an address over its budget hears 429, not which of its keys are wrong
          recordFailure(address);
        }
        throw err;
      }
      noteUse(credential.apiKey);
      return contextOf(credential);
    },
  };
}
