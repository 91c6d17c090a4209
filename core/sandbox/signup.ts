/**
 * Anonymous sandbox sign-up (DECISIONS.md §1): an organisation, one `ak_test_` key with every scope (its secret
 * returned once, only its hash stored) and the seeded dataset, all in the caller's transaction, so a failed sign-up
 * leaves nothing behind.
 */
import { mintApiKey, type ApiKey } from '../access/api-keys';
import { createOrganization, type Organization } from '../access/organizations';
import { SCOPES } from '../access/scopes';
import type { DocumentStore } from '../documents/store';
import type { Trx } from '../platform/db';
import { seedTenant } from './seed';

export const DEFAULT_SANDBOX_ORGANIZATION_NAME = 'Sandbox organisation';
export const SIGNUP_KEY_NAME = 'sandbox sign-up key';

export interface SandboxSignup {
  organization: Organization;
  apiKey: ApiKey;
  /** The full key: shown once, in the sign-up's response. */
  secret: string;
  seededDebtIds: string[];
}

/** With `documents`, the seed attaches its sample agreements (seed.ts). */
export async function signUpSandboxTenant(
  trx: Trx,
  input: { organizationName?: string },
  documents?: DocumentStore,
): Promise<SandboxSignup> {
  const name = input.organizationName?.trim() || DEFAULT_SANDBOX_ORGANIZATION_NAME;
  const organization = await createOrganization(trx, { name, mode: 'sandbox' });
  const { apiKey, secret } = await mintApiKey(trx, {
    organizationId: organization.id,
    mode: 'sandbox',
    name: SIGNUP_KEY_NAME,
    scopes: [...SCOPES],
    readOnly: false,
  });
  const seeded = await seedTenant(trx, organization.id, new Date(), documents);
  return { organization, apiKey, secret, seededDebtIds: seeded.debtIds };
}
