/**
 * The Webhooks page: the receiver's URL and signing secret, read by every role; saving, rotating, clearing and the
 * test event go through core/staff's console services, which check the role first and audit the change.
 */
import type Router from '@koa/router';
import { errors } from '../../../core/platform/errors';
import {
  clearConsoleWebhook,
  configureConsoleWebhook,
  readConsoleWebhook,
  rotateConsoleWebhookSecret,
  sendConsoleTestEvent,
} from '../../../core/staff/console-webhooks';
import { canManageWebhooks, requireWebhookManagement } from '../../../core/staff/roles';
import { createWebhookUrlCheck } from '../../../core/webhooks/url-check';
import type { ConsoleContext } from '../shared/console-context';
import { listConsoleDeliveries } from '../../../core/staff/console-deliveries';
import type { WebhookConfig } from '../../../core/platform/webhook-config';
import { field, seeOther } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import { ConfirmBody, SecretBody, WebhooksBody } from './webhooks-pages';

/** How many of the latest deliveries the Webhooks page lists (the Deliveries page has them all). */
const RECENT_DELIVERIES = 5;

/** What this environment accepts as a receiver URL, said on the form (development and tests relax the rules). */
function acceptedReceivers(policy: WebhookConfig): string {
  const relaxed = [
    ...(policy.allowHttp ? ['http:// URLs'] : []),
    ...(policy.allowHosts.length > 0 ? [`the hosts ${policy.allowHosts.join(', ')} (any address)`] : []),
  ];
  const rule = 'an https URL whose host resolves to public addresses only';
  return relaxed.length === 0
    ? `This environment accepts ${rule}.`
    : `This environment (development or test) accepts ${rule}, and also ${relaxed.join(' and ')}. Production accepts ${rule}.`;
}

export function webhookRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;
  const { secretBox } = c.deps.webhooks;
  const checkUrl = createWebhookUrlCheck({
    policy: config.webhooks,
    resolveHost: c.deps.webhooks.resolveHost,
    timeoutMs: c.deps.webhooks.resolveTimeoutMs,
  });

  router.get('/console/webhooks', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const webhook = await readConsoleWebhook(db, session.organizationId);
    const canManage = canManageWebhooks(session.role, mode);
    const recent = await listConsoleDeliveries(db, session.organizationId, {}, { limit: RECENT_DELIVERIES });
    c.page(
      ctx,
      'Webhooks',
      <WebhooksBody
        config={webhook}
        csrfToken={session.csrfToken}
        canManage={canManage}
        accepts={acceptedReceivers(config.webhooks)}
        recent={recent.items}
      />,
    );
  });

  router.post('/console/webhooks', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const url = field(form, 'url').trim();
    if (url === '' || url.length > 2048) {
      throw errors.invalidRequest('Enter the receiver’s URL (at most 2,048 characters), or clear the receiver.');
    }
    const change = await configureConsoleWebhook({ db, secretBox, checkUrl }, session, mode, url);
    if (!change.newSecret) return c.doneThen(ctx, '/console/webhooks', 'The receiver URL was saved.');
    c.page(ctx, 'Receiver saved', <SecretBody config={change} secret={change.newSecret} />, 201);
  });

  for (const what of ['rotate', 'clear'] as const) {
    router.get(`/console/webhooks/${what}`, async (ctx) => {
      const session = await signedIn(c, ctx);
      if (!session) return;
      requireWebhookManagement(session.role, mode);
      const webhook = await readConsoleWebhook(db, session.organizationId);
      if (!webhook.enabled) return seeOther(ctx, '/console/webhooks');
      const title = what === 'rotate' ? 'Rotate the signing secret' : 'Clear the receiver';
      c.page(ctx, title, <ConfirmBody what={what} config={webhook} csrfToken={session.csrfToken} />);
    });
  }

  router.post('/console/webhooks/rotate', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const change = await rotateConsoleWebhookSecret({ db, secretBox }, session, mode);
    c.page(ctx, 'Secret rotated', <SecretBody config={change} secret={change.newSecret ?? ''} />);
  });

  router.post('/console/webhooks/clear', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    await clearConsoleWebhook(db, session, mode);
    c.doneThen(
      ctx,
      '/console/webhooks',
      'The receiver was cleared: no new events are delivered. Deliveries already under way continue.',
    );
  });

  router.post('/console/webhooks/test', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const ping = await sendConsoleTestEvent(db, session, mode);
    c.doneThen(
      ctx,
      `/console/deliveries/${ping.deliveryId}`,
      'Test event sent: a test.ping is on its way to your receiver, signed and retried like every event.',
    );
  });
}
