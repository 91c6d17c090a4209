/**
 * AES-256-GCM for secrets at rest (webhook signing secrets). Each value gets a fresh 96-bit IV; the tag authenticates
 * it. The caller passes associated data (the owning organisation's id), so a ciphertext copied onto another
 * organisation's row fails to open instead of signing that organisation's webhooks.
 *
 * Each entry point builds one box from the configured key (`createSecretBox(config.webhooks.secretEncryptionKey)`)
 * and passes it explicitly; nothing else holds the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealedSecret {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

export interface SecretBox {
  seal(plaintext: string, associatedData: string): SealedSecret;
  /** Throws SecretUnreadableError if the key, the associated data or any byte of the sealed value is wrong. */
  open(sealed: SealedSecret, associatedData: string): string;
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** The sealed value does not open: wrong key (rotated WEBHOOK_SECRET_KEY), wrong owner, or tampered bytes. */
export class SecretUnreadableError extends Error {
  constructor() {
    super('the sealed secret cannot be opened with this key');
    this.name = 'SecretUnreadableError';
  }
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secret encryption key must be 32 bytes');
  const secretKey = Buffer.from(key); // a copy: a caller reusing its buffer cannot change the box's key
  return {
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, secretKey, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { iv, tag: cipher.getAuthTag(), ciphertext };
    },
    open(sealed, associatedData) {
      try {
        const decipher = createDecipheriv(ALGORITHM, secretKey, sealed.iv);
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(sealed.tag);
        return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretUnreadableError();
      }
    },
  };
}
