/** The Events page's route: the organisation's event log, filtered by type, paged by cursor (every role). */
import type Router from '@koa/router';
import { isEventType } from '../../../core/events/outbox';
import { errors } from '../../../core/platform/errors';
import { listConsoleEvents } from '../../../core/staff/console-deliveries';
import type { ConsoleContext } from '../shared/console-context';
import { queryValue } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import { EventsBody } from './events-page';

const EVENTS_PER_PAGE = 25;

export function eventsRoutes(router: Router, c: ConsoleContext): void {
  const { db } = c.deps;

  router.get('/console/events', async (ctx) => {
    const session = await signedIn(c, ctx);
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
}
