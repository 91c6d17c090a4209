/**
 * The Webhooks, Deliveries, Events and Audit log pages. Reads render for every role (the audit log for owners and
 * admins); writes go through core/staff's console services, which check the role first and audit the change.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { EVENT_TYPES, type EventType } from '../../core/events/outbox';
import { errors } from '../../core/platform/errors';
import { listAudit } from '../../core/staff/audit-log';
import {
  findConsoleDelivery,
  listConsoleDeliveries,
  listConsoleEvents,
  retryConsoleDelivery,
  retryConsoleFailedSince,
} from '../../core/staff/console-deliveries';
import {
  clearConsoleWebhook,
  configureConsoleWebhook,
  readConsoleWebhook,
  rotateConsoleWebhookSecret,
  sendConsoleTestEvent,
} from '../../core/staff/console-webhooks';
import { canManageWebhooks, requireAuditReading, requireWebhookManagement } from '../../core/staff/roles';
import type { StaffSession } from '../../core/staff/sessions';
import { RETRY_FAILED_CAP, type DeliveryStatus } from '../../core/webhooks/deliveries';
import { createWebhookUrlCheck } from '../../core/webhooks/url-check';
import { AuditBody } from './audit-page';
import type { ConsoleContext } from './console-context';
import {
  DeliveriesBody,
  DeliveryBody,
  RetriedAllBody,
  STATUS_FILTERS,
  type DeliveryQuery,
  type StatusFilter,
} from './deliveries-pages';
import { EventsBody } from './events-page';
import { field } from './http';
import { ConfirmBody, SecretBody, WebhooksBody } from './webhooks-pages';

const DELIVERIES_PER_PAGE = 50;
const EVENTS_PER_PAGE = 25;
const AUDIT_PER_PAGE = 50;
const DAY_MS = 86_400_000;

const STATUS_OF: Record<StatusFilter, DeliveryStatus> = {
  Pending: 'Pending',
  Delivered: 'Succeeded',
  Failed: 'Failed',
};

export function webhookRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;
  const { secretBox } = c.deps.webhooks;
  const checkUrl = createWebhookUrlCheck({
    policy: config.webhooks,
    resolveHost: c.deps.webhooks.resolveHost,
    timeoutMs: c.deps.webhooks.resolveTimeoutMs,
  });

  async function signedIn(ctx: Context): Promise<StaffSession | null> {
    const session = await c.session(ctx);
    if (!session) ctx.redirect('/console/sign-in');
    return session;
  }

  function seeOther(ctx: Context, location: string): void {
    ctx.status = 303;
    ctx.redirect(location);
  }

  router.get('/console/webhooks', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const webhook = await readConsoleWebhook(db, session.organizationId);
    const canManage = canManageWebhooks(session.role, mode);
    const done = queryValue(ctx, 'done');
    c.page(
      ctx,
      'Webhooks',
      <WebhooksBody config={webhook} csrfToken={session.csrfToken} canManage={canManage} done={done} />,
    );
  });

  router.post('/console/webhooks', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const url = field(form, 'url').trim();
    if (url === '' || url.length > 2048) {
      throw errors.invalidRequest('Enter the receiver’s URL (at most 2,048 characters), or clear the receiver.');
    }
    const change = await configureConsoleWebhook({ db, secretBox, checkUrl }, session, mode, url);
    if (!change.newSecret) return seeOther(ctx, '/console/webhooks?done=saved');
    c.page(ctx, 'Receiver saved', <SecretBody config={change} secret={change.newSecret} />, 201);
  });

  for (const what of ['rotate', 'clear'] as const) {
    router.get(`/console/webhooks/${what}`, async (ctx) => {
      const session = await signedIn(ctx);
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
    seeOther(ctx, '/console/webhooks?done=cleared');
  });

  router.post('/console/webhooks/test', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const ping = await sendConsoleTestEvent(db, session, mode);
    seeOther(ctx, `/console/deliveries/${ping.deliveryId}`);
  });

  router.get('/console/deliveries', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const query = deliveryQuery(ctx);
    const cursor = queryValue(ctx, 'cursor');
    const filter = {
      status: query.status ? STATUS_OF[query.status] : undefined,
      eventType: query.eventType || undefined,
      createdFrom: query.from ? dayStart(query.from, 'from') : undefined,
      createdBefore: query.to ? new Date(dayStart(query.to, 'to').getTime() + DAY_MS) : undefined,
    };
    const page = await listConsoleDeliveries(db, session.organizationId, filter, {
      limit: DELIVERIES_PER_PAGE,
      cursor,
    });
    const defaultSince = new Date(Date.now() - 7 * DAY_MS).toISOString().slice(0, 10);
    c.page(
      ctx,
      'Deliveries',
      <DeliveriesBody
        query={query}
        page={page}
        paged={cursor !== undefined}
        canManage={canManageWebhooks(session.role, mode)}
        csrfToken={session.csrfToken}
        defaultSince={defaultSince}
        cap={RETRY_FAILED_CAP}
      />,
    );
  });

  router.post('/console/deliveries/retry-failed', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const since = field(form, 'since').trim();
    const count = await retryConsoleFailedSince(db, session, mode, dayStart(since, 'since'));
    c.page(ctx, 'Retries queued', <RetriedAllBody count={count} since={since} cap={RETRY_FAILED_CAP} />);
  });

  router.get('/console/deliveries/:id', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const delivery = await findConsoleDelivery(db, session.organizationId, ctx.params.id ?? '');
    const canManage = canManageWebhooks(session.role, mode);
    c.page(ctx, 'Delivery', <DeliveryBody delivery={delivery} canManage={canManage} csrfToken={session.csrfToken} />);
  });

  router.post('/console/deliveries/:id/retry', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const retried = await retryConsoleDelivery(db, session, mode, ctx.params.id ?? '');
    seeOther(ctx, `/console/deliveries/${retried.id}`);
  });

  router.get('/console/events', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const type = queryValue(ctx, 'type') ?? '';
    if (type !== '' && !isEventType(type)) throw errors.invalidRequest(`There is no event type ${type}.`);
    const cursor = queryValue(ctx, 'cursor');
    const page = await listConsoleEvents(db, session.organizationId, type || undefined, {
      limit: EVENTS_PER_PAGE,
      cursor,
    });
    c.page(ctx, 'Events', <EventsBody type={type} page={page} paged={cursor !== undefined} />);
  });

  router.get('/console/audit', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    requireAuditReading(session.role);
    const cursor = queryValue(ctx, 'cursor');
    const page = await listAudit(db, session.organizationId, mode, { limit: AUDIT_PER_PAGE, cursor });
    const olderHref = page.nextCursor ? `/console/audit?cursor=${encodeURIComponent(page.nextCursor)}` : null;
    c.page(ctx, 'Audit log', <AuditBody entries={page.data} olderHref={olderHref} paged={cursor !== undefined} />);
  });
}

/** A query parameter given once, or undefined (absent, empty or repeated). */
function queryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

function deliveryQuery(ctx: Context): DeliveryQuery {
  const status = queryValue(ctx, 'status') ?? '';
  if (status !== '' && !(STATUS_FILTERS as readonly string[]).includes(status)) {
    throw errors.invalidRequest('The status is one of All, Pending, Delivered and Failed.');
  }
  const eventType = queryValue(ctx, 'eventType') ?? '';
  if (eventType !== '' && !isEventType(eventType)) throw errors.invalidRequest(`There is no event type ${eventType}.`);
  const from = queryValue(ctx, 'from') ?? '';
  const to = queryValue(ctx, 'to') ?? '';
  if (from) dayStart(from, 'from');
  if (to) dayStart(to, 'to');
  return { status: status as StatusFilter | '', eventType, from, to };
}

/** The start (UTC) of a `YYYY-MM-DD` day; anything else is refused naming the field. */
function dayStart(value: string, name: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : undefined;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw errors.invalidRequest(`The ${name} date must be a day written YYYY-MM-DD.`);
  }
  return day;
}
