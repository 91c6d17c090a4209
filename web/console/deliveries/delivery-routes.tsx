/**
 * The Deliveries pages: the organisation's webhook deliveries, filtered and paged, one delivery's attempts, and the
 * retries (one, or every failed one since a day), which go through core/staff and are audited.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isEventType } from '../../../core/events/outbox';
import { ApiError, errors } from '../../../core/platform/errors';
import {
  findConsoleDelivery,
  listConsoleDeliveries,
  retryConsoleDelivery,
  retryConsoleDeliveryNow,
  retryConsoleFailedSince,
} from '../../../core/staff/console-deliveries';
import { canManageWebhooks } from '../../../core/staff/roles';
import { RETRY_FAILED_CAP, type DeliveryStatus } from '../../../core/webhooks/deliveries';
import type { ConsoleContext } from '../shared/console-context';
import { field, queryValue } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import {
  DeliveriesBody,
  DeliveryBody,
  RetriedAllBody,
  STATUS_FILTERS,
  type DeliveryQuery,
  type StatusFilter,
} from './deliveries-pages';

const DELIVERIES_PER_PAGE = 50;
const DAY_MS = 86_400_000;

const STATUS_OF: Record<StatusFilter, DeliveryStatus> = {
  Pending: 'Pending',
  Delivered: 'Succeeded',
  Failed: 'Failed',
};

export function deliveryRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;

  router.get('/console/deliveries', async (ctx) => {
    const session = await signedIn(c, ctx);
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
    const session = await signedIn(c, ctx);
    if (!session) return;
    const delivery = await findConsoleDelivery(db, session.organizationId, ctx.params.id ?? '');
    const canManage = canManageWebhooks(session.role, mode);
    c.page(
      ctx,
      'Delivery',
      <DeliveryBody
        delivery={delivery}
        canManage={canManage}
        canRetryNow={c.deps.deliveryRetryNow !== undefined}
        csrfToken={session.csrfToken}
      />,
    );
  });

  router.post('/console/deliveries/:id/retry', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const retried = await retryConsoleDelivery(db, session, mode, ctx.params.id ?? '');
    c.doneThen(
      ctx,
      `/console/deliveries/${retried.id}`,
      'Retry queued: the event is delivered again with the whole retry schedule.',
    );
  });

  router.post('/console/deliveries/:id/retry-now', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const retryNow = c.deps.deliveryRetryNow;
    if (!retryNow) throw new ApiError('service_unavailable', 'Retry now is not available on this host.');
    const delivery = await retryConsoleDeliveryNow(db, retryNow, session, mode, ctx.params.id ?? '');
    c.doneThen(
      ctx,
      `/console/deliveries/${delivery.id}`,
      `Attempt ${delivery.attemptCount + 1} is being sent now; if it fails, the remaining retries keep their schedule.`,
    );
  });
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
