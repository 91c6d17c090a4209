/**
 * The API keys page's reads and writes: the organisation's keys of this host's mode with who minted each, minting
 * (recorded with its creator, in one transaction) and revoking by id within the organisation only: another
 * organisation's key id is not found. The role check comes first, in every write.
 */
import { listApiKeys, mintApiKey, revokeApiKey, type ApiKey, type MintKeyInput } from '../access/api-keys';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { recordAudit } from './audit-log';
import { requireKeyManagement } from './roles';
import type { StaffActor } from './staff-actor';

/** A row of `api_key_creators`. */
export interface ApiKeyCreatorRow {
  api_key_id: string;
  staff_user_id: string | null;
  email: string;
}

export interface ConsoleKey extends ApiKey {
  /** The console user who minted it; null for a key the operator CLI minted. */
  createdBy: string | null;
}

export async function listConsoleKeys(db: Db, organizationId: string, mode: Mode): Promise<ConsoleKey[]> {
  const keys = (await listApiKeys(db, organizationId)).filter((k) => k.mode === mode);
  const creators = await db('api_key_creators').whereIn(
    'api_key_id',
    keys.map((k) => k.id),
  );
  const byKey = new Map(creators.map((c) => [c.api_key_id, c.email]));
  return keys.reverse().map((k) => ({ ...k, createdBy: byKey.get(k.id) ?? null }));
}

export async function mintConsoleKey(
  db: Db,
  actor: StaffActor,
  mode: Mode,
  input: Omit<MintKeyInput, 'organizationId' | 'mode'>,
): Promise<{ apiKey: ApiKey; secret: string }> {
  requireKeyManagement(actor.role, mode);
  return db.transaction(async (trx) => {
    const minted = await mintApiKey(trx, { ...input, organizationId: actor.organizationId, mode });
    await trx('api_key_creators').insert({
      api_key_id: minted.apiKey.id,
      staff_user_id: actor.userId,
      email: actor.email,
    });
    const { id, prefix, name, scopes, readOnly } = minted.apiKey;
    await recordAudit(trx, actor, mode, {
      action: 'key.minted',
      target: id,
      details: { prefix, name, scopes, readOnly },
    });
    return minted;
  });
}

/** The key to confirm a revocation of: this organisation's and this mode's, or not found. */
export async function findConsoleKey(db: Db, organizationId: string, mode: Mode, keyId: string): Promise<ConsoleKey> {
  const key = (await listConsoleKeys(db, organizationId, mode)).find((k) => k.id === keyId);
  if (!key) throw errors.notFound('API key');
  return key;
}

export async function revokeConsoleKey(db: Db, actor: StaffActor, mode: Mode, keyId: string): Promise<ConsoleKey> {
  requireKeyManagement(actor.role, mode);
  const key = await findConsoleKey(db, actor.organizationId, mode, keyId);
  if (key.revokedAt) return key;
  await db.transaction(async (trx) => {
    await revokeApiKey(trx, key.id);
    await recordAudit(trx, actor, mode, { action: 'key.revoked', target: key.id, details: { prefix: key.prefix } });
  });
  return key;
}
