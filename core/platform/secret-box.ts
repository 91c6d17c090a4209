/**
 * AES-256-GCM for secrets at rest (webhook signing secrets). Each value gets a fresh 96-bit IV; the tag authenticates
 * it. The caller passes associated data (the owning organisation's id), so a ciphertext copied onto another
 * organisation's row fails to open instead of signing that organisation's webhooks.
 *
 * Keys rotate: the box seals under the current key and opens under the current or the previous one. Every sealed
 * value names its key by id, the key's fingerprint (the first 8 bytes of its SHA-256, in hex), so operators never
 * name keys and an id cannot point at the wrong key. Values sealed before key ids existed carry none; they open under
 * whichever configured key authenticates them. `npm run cli -- secrets reseal` moves everything to the current key.
 *
 * Each entry point builds one box from the configured keys (`createSecretBox(config.webhooks.secretKeys)`) and
 * passes it explicitly; nothing else holds the keys.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SealedSecret {
  /** The fingerprint of the key that sealed it; null or absent for values sealed before key ids existed. */
  keyId?: string | null;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** The four columns a table stores a sealed secret in (webhook_configs, webhook_deliveries). */
export interface SealedSecretColumns {
  secret_key_id: string | null;
  secret_iv: Buffer | null;
  secret_tag: Buffer | null;
  secret_ciphertext: Buffer | null;
}

/** A row's sealed secret; asking a row that holds none (a disabled receiver) is a bug. */
export function sealedSecretOf(row: SealedSecretColumns): SealedSecret {
  if (!row.secret_iv || !row.secret_tag || !row.secret_ciphertext) throw new Error('no sealed secret on this row');
  return { keyId: row.secret_key_id, iv: row.secret_iv, tag: row.secret_tag, ciphertext: row.secret_ciphertext };
}

/** The column values that store `sealed`. */
export function sealedSecretColumns(sealed: SealedSecret): SealedSecretColumns {
  return {
    secret_key_id: sealed.keyId ?? null,
    secret_iv: sealed.iv,
    secret_tag: sealed.tag,
    secret_ciphertext: sealed.ciphertext,
  };
}

/** The current key seals and opens; the previous one (during a rotation) only opens. */
export interface SecretKeys {
  current: Buffer;
  previous: Buffer | null;
}

export interface SecretBox {
  /** The id every value sealed now carries. */
  readonly currentKeyId: string;
  seal(plaintext: string, associatedData: string): SealedSecret & { keyId: string };
  /** Throws SecretUnreadableError if the key, the associated data or any byte of the sealed value is wrong. */
  open(sealed: SealedSecret, associatedData: string): string;
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** The sealed value does not open: unknown or wrong key (WEBHOOK_SECRET_KEY changed), wrong owner, or tampered bytes. */
export class SecretUnreadableError extends Error {
  constructor(detail = 'the sealed secret cannot be opened with the configured keys') {
    super(detail);
    this.name = 'SecretUnreadableError';
  }
}

/** A key's id: the first 8 bytes of its SHA-256, hex. Reveals nothing usable about a 256-bit key. */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** A bare Buffer is one key with no previous one (unit tests, tools). */
export function createSecretBox(keys: SecretKeys | Buffer | null): SecretBox {
  if (keys === null) {
    throw new Error(
      'no webhook secret key is configured: set WEBHOOK_SECRET_KEY (see docs/operators/configuration.md)',
    );
  }
  const { current, previous } = Buffer.isBuffer(keys) ? { current: keys, previous: null } : keys;
  // Copies: a caller reusing its buffers cannot change the box's keys.
  const ring = new Map<string, Buffer>();
  for (const key of [current, previous]) {
    if (key === null) continue;
    if (key.length !== 32) throw new Error('a secret encryption key must be 32 bytes');
    ring.set(secretKeyId(key), Buffer.from(key));
  }
  const currentKeyId = secretKeyId(current);
  const currentKey = ring.get(currentKeyId)!;

  function openWith(key: Buffer, sealed: SealedSecret, associatedData: string): string {
    const decipher = createDecipheriv(ALGORITHM, key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }

  return {
    currentKeyId,
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, currentKey, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { keyId: currentKeyId, iv, tag: cipher.getAuthTag(), ciphertext };
    },
    open(sealed, associatedData) {
      const named = sealed.keyId ? ring.get(sealed.keyId) : undefined;
      if (sealed.keyId && !named) {
        throw new SecretUnreadableError(`the secret was sealed under key ${sealed.keyId}, which is not configured`);
      }
      for (const key of named ? [named] : ring.values()) {
        try {
          return openWith(key, sealed, associatedData);
        } catch {
          // the next key, if any: a value without a key id is tried under each
        }
      }
      throw new SecretUnreadableError();
    },
  };
}
