/**
 * The Webhooks page's writes: set or clear the receiver URL, rotate the signing secret, send a test event. Each is
 * what PUT /v1/webhooks or POST /v1/webhooks/test does (the same services, the same SSRF check of the URL before
 * the transaction), preceded by the role check and recorded in the audit log in the change's own transaction. The
 * secret is returned once to the caller and never written to the audit log.
 */
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import type { SecretBox } from '../platform/secret-box';
import { createTestPing } from '../webhooks/dispatch';
import {
  clearWebhookConfig,
  getWebhookConfig,
  rotateWebhookSecret,
  setWebhookUrl,
  type WebhookConfigChange,
  type WebhookConfigView,
} from '../webhooks/receiver-config';
import { checkReceiverUrl, type CheckWebhookUrl } from '../webhooks/url-check';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requireWebhookManagement } from './roles';

export interface ConsoleWebhookDeps {
  db: Db;
  secretBox: SecretBox;
  /** The receiver URL check PUT /v1/webhooks makes (core/webhooks/url-check.ts). */
  checkUrl: CheckWebhookUrl;
}

export function readConsoleWebhook(db: Db, organizationId: string): Promise<WebhookConfigView> {
  return getWebhookConfig(db, organizationId);
}

/** Sets the URL; the first time (or after a clear) a secret is minted and returned once as `newSecret`. */
export async function configureConsoleWebhook(
  deps: ConsoleWebhookDeps,
  actor: StaffActor,
  mode: Mode,
  url: string,
): Promise<WebhookConfigChange> {
  requireWebhookManagement(actor.role, mode);
  const checked = await checkReceiverUrl(deps.checkUrl, actor.organizationId, url);
  return deps.db.transaction(async (trx) => {
    const change = await setWebhookUrl(trx, deps.secretBox, actor.organizationId, checked);
    await recordAudit(trx, actor, mode, {
      action: 'webhook.configured',
      details: { url: checked, secretMinted: change.newSecret !== undefined, secretPrefix: change.secretPrefix },
    });
    return change;
  });
}

export async function clearConsoleWebhook(db: Db, actor: StaffActor, mode: Mode): Promise<void> {
  requireWebhookManagement(actor.role, mode);
  await db.transaction(async (trx) => {
    const before = await getWebhookConfig(trx, actor.organizationId);
    await clearWebhookConfig(trx, actor.organizationId);
    await recordAudit(trx, actor, mode, { action: 'webhook.cleared', details: { url: before.url } });
  });
}

/** A new secret, returned once; the old one stops signing at once. `no_webhook_configured` when none is set. */
export async function rotateConsoleWebhookSecret(
  deps: Pick<ConsoleWebhookDeps, 'db' | 'secretBox'>,
  actor: StaffActor,
  mode: Mode,
): Promise<WebhookConfigChange> {
  requireWebhookManagement(actor.role, mode);
  return deps.db.transaction(async (trx) => {
    const change = await rotateWebhookSecret(trx, deps.secretBox, actor.organizationId);
    await recordAudit(trx, actor, mode, {
      action: 'webhook.secret_rotated',
      details: { secretPrefix: change.secretPrefix },
    });
    return change;
  });
}

/** A `test.ping` and its delivery, as POST /v1/webhooks/test makes them. */
export async function sendConsoleTestEvent(
  db: Db,
  actor: StaffActor,
  mode: Mode,
): Promise<{ eventId: string; deliveryId: string }> {
  requireWebhookManagement(actor.role, mode);
  return db.transaction(async (trx) => {
    const ping = await createTestPing(trx, actor.organizationId);
    await recordAudit(trx, actor, mode, {
      action: 'webhook.test_sent',
      target: ping.deliveryId,
      details: { eventId: ping.eventId },
    });
    return ping;
  });
}
