/**
 * Authenticates `Authorization: Bearer <key>`. Form and mode are checked before any database work; a key's record
 * is cached in memory for at most one second, so a revocation takes effect on every API process within a second
 * while a busy key costs one lookup a second, not one a request.
 */
import {
  findApiKeyBySecret,
  hashKeySecret,
  modeOfKeySecret,
  recordKeyUse,
  type ApiKey,
} from '../../core/access/api-keys';
import type { Organization } from '../../core/access/organizations';
import type { AuthContext } from '../../core/access/auth-context';
import type { Mode } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { errors } from '../../core/platform/errors';
import type { Logger } from '../../core/platform/logger';

export const KEY_CACHE_TTL_MS = 1_000;
const KEY_CACHE_MAX_ENTRIES = 10_000;
/** `last_used_at` is for humans reading `key list`; minute precision spares a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyAuthenticator {
  authenticate(authorizationHeader: string | undefined): Promise<AuthContext>;
}

export function createKeyAuthenticator(options: { db: Db; mode: Mode; logger: Logger }): KeyAuthenticator {
  const { db, mode, logger } = options;
  type Credential = { apiKey: ApiKey; organization: Organization };
  const cache = new Map<string, { credential: Credential | undefined; expiresAt: number }>();
  const lastUseRecorded = new Map<string, number>();
  const expectedPrefix = mode === 'production' ? 'ak_live_' : 'ak_test_';

  async function lookup(secret: string): Promise<Credential | undefined> {
    const cacheKey = hashKeySecret(secret);
    const now = Date.now();
    const hit = cache.get(cacheKey);
    if (hit && hit.expiresAt > now) return hit.credential;
    const credential = await findApiKeyBySecret(db, secret);
    if (cache.size >= KEY_CACHE_MAX_ENTRIES) cache.clear();
    cache.set(cacheKey, { credential, expiresAt: now + KEY_CACHE_TTL_MS });
    return credential;
  }

  function noteUse(key: ApiKey): void {
    const now = Date.now();
    if (now - (lastUseRecorded.get(key.id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    lastUseRecorded.set(key.id, now);
    recordKeyUse(db, key.id, new Date(now)).catch((err: unknown) =>
      logger.warn({ err: (err as Error).message, keyId: key.id }, 'could not record key use'),
    );
  }

  return {
    async authenticate(header) {
      if (!header)
        throw errors.unauthenticated('Missing Authorization header: send `Authorization: Bearer <API key>`.');
      const match = /^Bearer +(\S+)$/i.exec(header.trim());
      if (!match) throw errors.unauthenticated('Malformed Authorization header: expected `Bearer <API key>`.');
      const secret = match[1]!;
      const keyMode = modeOfKeySecret(secret);
      if (!keyMode) throw errors.unauthenticated('Malformed API key.');
      if (keyMode !== mode) {
        throw errors.unauthenticated(`This host accepts only ${expectedPrefix} keys.`);
      }
      const credential = await lookup(secret);
      const key = credential?.apiKey;
      if (!credential || !key || key.mode !== mode) throw errors.unauthenticated('Unknown API key.');
      if (key.revokedAt) throw errors.unauthenticated('This API key has been revoked.');
      noteUse(key);
      return {
        organizationId: key.organizationId,
        organization: credential.organization,
        keyId: key.id,
        mode: key.mode,
        scopes: new Set(key.scopes),
        readOnly: key.readOnly,
        hourlyLimit: key.hourlyLimit,
        dailyLimit: key.dailyLimit,
      };
    },
  };
}
