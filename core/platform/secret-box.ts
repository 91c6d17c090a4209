/**
 * AES-256-GCM for secrets at rest (webhook signing secrets). Each value gets a fresh 96-bit IV; the tag authenticates
 * it. The caller passes associated data (the owning organisation's id), so a ciphertext copied onto another
 * organisation's row fails to open instead of signing that organisation's webhooks.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealedSecret {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new Error('the secret encryption key must be 32 bytes');
}

export function sealSecret(key: Buffer, plaintext: string, associatedData: string): SealedSecret {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

/** The sealed value does not open: wrong key (rotated WEBHOOK_SECRET_KEY), wrong owner, or tampered bytes. */
export class SecretUnreadableError extends Error {
  constructor() {
    super('the sealed secret cannot be opened with this key');
    this.name = 'SecretUnreadableError';
  }
}

/** Throws SecretUnreadableError if the key, the associated data or any byte of the sealed value is wrong. */
export function openSecret(key: Buffer, sealed: SealedSecret, associatedData: string): string {
  checkKey(key);
  try {
    const decipher = createDecipheriv(ALGORITHM, key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError();
  }
}
