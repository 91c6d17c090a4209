/**
 * API keys: `ak_live_…` (production) or `ak_test_…` (sandbox) followed by 40 random base62 characters.
 * Only the SHA-256 of a key is stored, with its first 16 characters for display (DECISIONS.md §1).
 */
import { hash, randomInt } from 'node:crypto';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import type { Organization } from './organizations';
import type { Scope } from './scopes';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;
export const KEY_PREFIX_BY_MODE: Record<Mode, string> = { production: 'ak_live_', sandbox: 'ak_test_' };
/** At least 32 base62 characters after the prefix; bounded so a huge header cannot cost us a hash. */
const KEY_FORM = /^ak_(live|test)_[A-Za-z0-9]{32,128}$/;
export const DISPLAY_PREFIX_LENGTH = 16;

export interface ApiKey {
  id: string;
  organizationId: string;
  mode: Mode;
  name: string;
  prefix: string;
  scopes: Scope[];
  readOnly: boolean;
  hourlyLimit: number | null;
  dailyLimit: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A row of `api_keys`. */
export interface ApiKeyRow {
  id: string;
  organization_id: string;
  mode: Mode;
  name: string;
  prefix: string;
  secret_hash: string;
  scopes: Scope[];
  read_only: boolean;
  hourly_limit: number | null;
  daily_limit: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = [
  'id',
  'organization_id',
  'mode',
  'name',
  'prefix',
  'scopes',
  'read_only',
  'hourly_limit',
  'daily_limit',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

/** A key as read: everything but the secret's hash. */
type ApiKeyFields = Pick<ApiKeyRow, (typeof COLUMNS)[number]>;

function toApiKey(row: ApiKeyFields): ApiKey {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    readOnly: row.read_only,
    hourlyLimit: row.hourly_limit,
    dailyLimit: row.daily_limit,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

export function generateKeySecret(mode: Mode): string {
  let secret = KEY_PREFIX_BY_MODE[mode];
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(BASE62.length)];
  return secret;
}

export function hashKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex'); // one-shot: it runs on every request's authentication
}

/** The mode a key belongs to by its form, or `undefined` when it is of no known form. */
export function modeOfKeySecret(secret: string): Mode | undefined {
  const match = KEY_FORM.exec(secret);
  if (!match) return undefined;
  return match[1] === 'live' ? 'production' : 'sandbox';
}

export interface MintKeyInput {
  organizationId: string;
  mode: Mode;
  name: string;
  scopes: Scope[];
  readOnly: boolean;
  hourlyLimit?: number | null;
  dailyLimit?: number | null;
}

/** Creates a key; the returned `secret` is the only time the full key exists outside the caller's hands. */
export async function mintApiKey(db: Db, input: MintKeyInput): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = generateKeySecret(input.mode);
  const [row] = await db('api_keys')
    .insert({
      id: newId(),
      organization_id: input.organizationId,
      mode: input.mode,
      name: input.name,
      prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
      secret_hash: hashKeySecret(secret),
      scopes: input.scopes,
      read_only: input.readOnly,
      hourly_limit: input.hourlyLimit ?? null,
      daily_limit: input.dailyLimit ?? null,
    })
    .returning(COLUMNS);
  if (!row) throw new Error('insert into api_keys returned no row');
  return { apiKey: toApiKey(row), secret };
}

/** The join of `findApiKeyBySecret`: the key's columns and its organisation's, prefixed. */
type KeyWithOrganization = ApiKeyFields & {
  organization_name: string;
  organization_mode: Mode;
  organization_created_at: Date;
};

/**
 * The key with its organisation, in one query: authentication needs both, and GET /v1/organization is answered
 * from what authentication already loaded.
 */
export async function findApiKeyBySecret(
  db: Db,
  secret: string,
): Promise<{ apiKey: ApiKey; organization: Organization } | undefined> {
  const joined = await db('api_keys')
    .join('organizations', 'organizations.id', 'api_keys.organization_id')
    .where('api_keys.secret_hash', hashKeySecret(secret))
    .first<KeyWithOrganization | undefined>(
      ...COLUMNS.map((c) => `api_keys.${c}`),
      'organizations.name as organization_name',
      'organizations.mode as organization_mode',
      'organizations.created_at as organization_created_at',
    );
  if (!joined) return undefined;
  return {
    apiKey: toApiKey(joined),
    organization: {
      id: joined.organization_id,
      name: joined.organization_name,
      mode: joined.organization_mode,
      createdAt: joined.organization_created_at.toISOString(),
    },
  };
}

export async function listApiKeys(db: Db, organizationId?: string): Promise<ApiKey[]> {
  const rows = await db('api_keys')
    .select(...COLUMNS)
    .where(organizationId ? { organization_id: organizationId } : {})
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toApiKey);
}

/** Returns false when no such key exists or it was already revoked. */
export async function revokeApiKey(db: Db, keyId: string): Promise<boolean> {
  const updated = await db('api_keys')
    .where({ id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now(3) });
  return updated > 0;
}

export async function recordKeyUse(db: Db, keyId: string, at: Date): Promise<void> {
  await db('api_keys').where({ id: keyId }).update({ last_used_at: at });
}
