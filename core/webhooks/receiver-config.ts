/**
 * Webhook configuration (spec §2, §4 PUT /v1/webhooks): one receiver per organisation, its URL and signing secret.
 * The secret is minted here, returned once to the caller, and stored only sealed by the caller's SecretBox (core/platform/secret-box.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../platform/db';
import { ApiError } from '../platform/errors';
import { sealedSecretColumns, type SecretBox } from '../platform/secret-box';

export const SECRET_PREFIX = 'whsec_';
export const SECRET_PREFIX_LENGTH = 12;

export interface WebhookConfigView {
  url: string | null;
  enabled: boolean;
  secretPrefix: string | null;
}

/** The answer of PUT: the configuration, plus the secret in the one response that minted it. */
export interface WebhookConfigChange extends WebhookConfigView {
  newSecret?: string;
}

/** A row of `webhook_configs`: URL and sealed secret are all set exactly when `enabled` (a check constraint). */
export interface WebhookConfigRow {
  organization_id: string;
  url: string | null;
  secret_key_id: string | null;
  secret_iv: Buffer | null;
  secret_tag: Buffer | null;
  secret_ciphertext: Buffer | null;
  secret_prefix: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The receiver a delivery goes to: URL and plaintext secret. Never logged, never passed to Temporal. */
export interface SigningTarget {
  url: string;
  secret: string;
}

/** `whsec_` + 32 random bytes, base64url: 256 bits, URL- and header-safe. */
export function mintWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function toView(row: WebhookConfigRow | undefined): WebhookConfigView {
  if (!row || !row.enabled) return { url: null, enabled: false, secretPrefix: null };
  return { url: row.url, enabled: true, secretPrefix: row.secret_prefix };
}

async function findRow(db: Db, organizationId: string): Promise<WebhookConfigRow | undefined> {
  return db('webhook_configs').where({ organization_id: organizationId }).first();
}

/** The row under a lock, so concurrent changes of one organisation's configuration apply one after the other. */
async function lockRow(trx: Trx, organizationId: string): Promise<WebhookConfigRow | undefined> {
  return trx('webhook_configs').where({ organization_id: organizationId }).first().forUpdate();
}

export async function getWebhookConfig(db: Db, organizationId: string): Promise<WebhookConfigView> {
  return toView(await findRow(db, organizationId));
}

const NO_SECRET = {
  secret_key_id: null,
  secret_iv: null,
  secret_tag: null,
  secret_ciphertext: null,
  secret_prefix: null,
};

async function writeConfig(
  db: Db,
  organizationId: string,
  url: string | null,
  secretColumns: ReturnType<typeof sealedColumns> | typeof NO_SECRET,
): Promise<void> {
  const row = { url, ...secretColumns, enabled: url !== null, updated_at: db.fn.now(3) };
  await db('webhook_configs')
    .insert({ organization_id: organizationId, ...row })
    .onConflict('organization_id')
    .merge(row);
}

function sealedColumns(secretBox: SecretBox, organizationId: string, secret: string) {
  return {
    ...sealedSecretColumns(secretBox.seal(secret, organizationId)),
    secret_prefix: secret.slice(0, SECRET_PREFIX_LENGTH),
  };
}

/** Sets the receiver URL; mints a secret if none is set (first configure, or after a clear). Locks the row. */
export async function setWebhookUrl(
  trx: Trx,
  secretBox: SecretBox,
  organizationId: string,
  url: string,
  rotate = false,
): Promise<WebhookConfigChange> {
  const current = await lockRow(trx, organizationId);
  if (current?.enabled && !rotate) {
    await trx('webhook_configs')
      .where({ organization_id: organizationId })
      .update({ url, updated_at: trx.fn.now(3) });
    return { url, enabled: true, secretPrefix: current.secret_prefix };
  }
  const newSecret = mintWebhookSecret();
  await writeConfig(trx, organizationId, url, sealedColumns(secretBox, organizationId, newSecret));
  return { url, enabled: true, secretPrefix: newSecret.slice(0, SECRET_PREFIX_LENGTH), newSecret };
}

/** Replaces the secret: the old one stops signing at once, in-flight retries included. 409 when nothing is set. */
export async function rotateWebhookSecret(
  trx: Trx,
  secretBox: SecretBox,
  organizationId: string,
): Promise<WebhookConfigChange> {
  const current = await lockRow(trx, organizationId);
  if (!current?.enabled || !current.url) throw new ApiError('no_webhook_configured');
  return setWebhookUrl(trx, secretBox, organizationId, current.url, true);
}

/** Disables delivery: URL and secret are forgotten; deliveries already enqueued keep their snapshots. */
export async function clearWebhookConfig(db: Db, organizationId: string): Promise<WebhookConfigView> {
  await writeConfig(db, organizationId, null, NO_SECRET);
  return { url: null, enabled: false, secretPrefix: null };
}
