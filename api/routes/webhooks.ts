/**
 * Webhook configuration (spec §4 PUT /v1/webhooks, DECISIONS §2/§4): read it, set the URL, rotate the secret, clear
 * it, and send a `test.ping` through the real delivery path. The full secret appears only in the response that minted
 * it, as `newSecret`.
 */
import type { WebhookConfig } from '../../core/platform/config';
import { errors } from '../../core/platform/errors';
import type { ResolveHost } from '../../core/webhooks/ssrf-guard';
import { checkReceiverUrl, createWebhookUrlCheck, type CheckWebhookUrl } from '../../core/webhooks/url-check';
import { createTestPing } from '../../core/webhooks/dispatch';
import {
  clearWebhookConfig,
  getWebhookConfig,
  rotateWebhookSecret,
  setWebhookUrl,
  type WebhookConfigChange,
} from '../../core/webhooks/receiver-config';
import type { Trx } from '../../core/platform/db';
import type { SecretBox } from '../../core/platform/secret-box';
import { defineApiRoute, type ApiMutationInput, type RouteDefinition } from '../http/route-definition';
import {
  mintedWebhookConfigExample,
  putWebhookConfigBody,
  testPingExample,
  testPingSchema,
  webhookConfigExample,
  webhookConfigSchema,
  type PutWebhookConfigBody,
} from '../schemas/webhooks';

/** Resolves and checks `body.url` before the transaction (see core/webhooks/url-check.ts). */
async function checkedUrl(check: CheckWebhookUrl, organizationId: string, body: PutWebhookConfigBody) {
  if (body.url === undefined || body.clear === true) return undefined;
  return checkReceiverUrl(check, organizationId, body.url);
}

/** The three operations of one body shape; `url` with `rotateSecret` sets the URL and rotates in one call. */
async function applyPut(
  trx: Trx,
  organizationId: string,
  body: PutWebhookConfigBody,
  checked: string | undefined,
  secretBox: SecretBox,
) {
  if (body.clear === true) {
    if (body.url !== undefined || body.rotateSecret === true) {
      throw errors.invalidRequest('`clear` cannot be combined with `url` or `rotateSecret`.');
    }
    return clearWebhookConfig(trx, organizationId);
  }
  if (checked !== undefined) {
    return setWebhookUrl(trx, secretBox, organizationId, checked, body.rotateSecret === true);
  }
  if (body.rotateSecret === true) return rotateWebhookSecret(trx, secretBox, organizationId);
  throw errors.invalidRequest('Send `url`, `rotateSecret: true` or `clear: true`.');
}

export interface WebhookRouteDeps {
  webhooks: WebhookConfig;
  /** Seals the signing secrets this route mints. */
  secretBox: SecretBox;
  /** Resolves a receiver's host name to its addresses (node's dns by default). */
  resolveHost: ResolveHost;
  /** Defaults to DEFAULT_RESOLVE_TIMEOUT_MS. */
  resolveTimeoutMs?: number;
}

export function webhookRoutes(deps: WebhookRouteDeps): RouteDefinition[] {
  const checkUrl = createWebhookUrlCheck({
    policy: deps.webhooks,
    resolveHost: deps.resolveHost,
    timeoutMs: deps.resolveTimeoutMs,
  });
  return [
    defineApiRoute({
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'getWebhookConfig',
      summary: 'Webhook configuration',
      description: 'Your receiver URL, whether delivery is enabled, and the secret’s prefix (never the secret).',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      responses: {
        200: {
          description: 'The configuration.',
          schema: webhookConfigSchema,
          example: webhookConfigExample,
        },
      },
      handler: async (_ctx, { db, auth }) => ({ status: 200, body: await getWebhookConfig(db, auth.organizationId) }),
    }),
    defineApiRoute<ApiMutationInput<PutWebhookConfigBody>>({
      method: 'put',
      path: '/v1/webhooks',
      operationId: 'putWebhookConfig',
      summary: 'Set the URL, rotate the secret, or clear',
      description:
        'One body, three operations. `url`: set the receiver (the first time, a signing secret is minted and ' +
        'returned once as `newSecret`). `rotateSecret: true`: mint a new secret; the old one stops signing at once, ' +
        'retries of deliveries in flight included. `clear: true`: forget URL and secret; deliveries in flight ' +
        'continue with the URL and secret they were enqueued with, and no new events are enqueued.',
      tags: ['Webhooks'],
      scope: 'webhooks:write',
      body: putWebhookConfigBody,
      errors: ['invalid_url', 'no_webhook_configured', 'rate_limited'],
      responses: {
        200: {
          description: 'The configuration after the change; `newSecret` when a secret was minted.',
          schema: webhookConfigSchema,
          example: mintedWebhookConfigExample,
        },
      },
      prepare: async (_ctx, { auth, body }) => checkedUrl(checkUrl, auth.organizationId, body),
      handler: async (_ctx, { trx, auth, body, prepared }) => {
        const checked = prepared as string | undefined;
        const result: WebhookConfigChange = await applyPut(trx, auth.organizationId, body, checked, deps.secretBox);
        return { status: 200, body: result };
      },
    }),
    defineApiRoute({
      method: 'post',
      path: '/v1/webhooks/test',
      operationId: 'sendTestWebhook',
      summary: 'Send a test.ping',
      description:
        'Raises a `test.ping` event (with `data: {}`) and delivers it to your receiver through the same path as ' +
        'every event: signed, retried, and listed in the delivery log.',
      tags: ['Webhooks'],
      scope: 'webhooks:write',
      errors: ['no_webhook_configured'],
      responses: {
        202: {
          description: 'The event and its delivery were created; the delivery is under way.',
          schema: testPingSchema,
          example: testPingExample,
        },
      },
      handler: async (_ctx, { trx, auth }) => ({ status: 202, body: await createTestPing(trx, auth.organizationId) }),
    }),
  ];
}
