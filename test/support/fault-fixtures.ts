/** Tenants, receivers and connection kills in a fault test's own database (the shared test helpers use testDb()). */
import { createSecretBox } from '../../core/platform/secret-box';
import { mintApiKey } from '../../core/access/api-keys';
import { createOrganization } from '../../core/access/organizations';
import { SCOPES } from '../../core/access/scopes';
import type { WebhookConfig } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import type { Mode } from '../../core/platform/mode';
import { setWebhookUrl } from '../../core/webhooks/receiver-config';
import type { TestTenant } from './tenants';

export async function createTenantIn(
  db: Db,
  receiver?: { webhooks: WebhookConfig; url: string },
  mode: Mode = 'production',
  /** The key's limits; the mode's defaults (1,000 an hour in production) when null. */
  limits: { hourlyLimit: number | null; dailyLimit: number | null } = { hourlyLimit: null, dailyLimit: null },
): Promise<TestTenant> {
  const organization = await createOrganization(db, { name: 'Fault Test Org', mode });
  const { apiKey, secret } = await mintApiKey(db, {
    organizationId: organization.id,
    mode,
    name: 'fault test key',
    scopes: [...SCOPES],
    readOnly: false,
    ...limits,
  });
  if (receiver) {
    await db.transaction((trx) =>
      setWebhookUrl(trx, createSecretBox(receiver.webhooks.secretKeys), organization.id, receiver.url),
    );
  }
  return { organization, key: secret, keyId: apiKey.id, headers: { authorization: `Bearer ${secret}` } };
}

/** `pg_terminate_backend` on every connection with one of these application names; returns how many were ended. */
export async function terminateConnections(db: Db, applicationNames: string[]): Promise<number> {
  const { rows } = await db.raw<{ rows: { terminated: boolean }[] }>(
    `select pg_terminate_backend(pid) as terminated from pg_stat_activity
      where application_name = any(?) and pid <> pg_backend_pid()`,
    [applicationNames],
  );
  return rows.filter((row) => row.terminated).length;
}

export async function connectionCount(db: Db, applicationName: string): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: number }[] }>(
    'select count(*) as n from pg_stat_activity where application_name = ?',
    [applicationName],
  );
  return rows[0]?.n ?? 0;
}
