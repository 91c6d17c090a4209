/** Creates a fresh organisation with a key in the test database, so tests never depend on each other's data. */
import { mintApiKey } from '../../core/access/api-keys';
import type { Mode } from '../../core/platform/config';
import { createOrganization, type Organization } from '../../core/access/organizations';
import { SCOPES, type Scope } from '../../core/access/scopes';
import { testDb } from './resources';

export interface TestTenant {
  organization: Organization;
  key: string;
  keyId: string;
  /** `Authorization` header for fetch. */
  headers: Record<string, string>;
}

export interface TenantOptions {
  mode?: Mode;
  scopes?: Scope[];
  readOnly?: boolean;
  hourlyLimit?: number;
  dailyLimit?: number;
  name?: string;
}

export async function createTestTenant(options: TenantOptions = {}): Promise<TestTenant> {
  const mode = options.mode ?? 'production';
  const organization = await createOrganization(testDb(), { name: options.name ?? 'Test Org', mode });
  const minted = await mintKey(organization.id, options);
  return { organization, ...minted };
}

/** Another key for an existing organisation. */
export async function mintKey(
  organizationId: string,
  options: TenantOptions = {},
): Promise<Omit<TestTenant, 'organization'>> {
  const { apiKey, secret } = await mintApiKey(testDb(), {
    organizationId,
    mode: options.mode ?? 'production',
    name: 'test key',
    scopes: options.scopes ?? [...SCOPES],
    readOnly: options.readOnly ?? false,
    hourlyLimit: options.hourlyLimit ?? null,
    dailyLimit: options.dailyLimit ?? null,
  });
  return { key: secret, keyId: apiKey.id, headers: { authorization: `Bearer ${secret}` } };
}

/** JSON request headers with the tenant's key (and an Idempotency-Key when given). */
export function jsonHeaders(
  tenant: { headers: Record<string, string> },
  idempotencyKey?: string,
): Record<string, string> {
  return {
    ...tenant.headers,
    'content-type': 'application/json',
    ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
  };
}
