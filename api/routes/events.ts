/** GET /v1/events (DECISIONS §4): every event of the organisation, newest first, to recover missed webhooks. */
import type { EventType } from '../../core/events/outbox';
import { listEvents } from '../../core/events/event-list';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';
import type { PageQuery } from '../schemas/common';
import { eventListExample, eventListSchema, listEventsQuery } from '../schemas/events';

type ListQuery = PageQuery & { type?: EventType };

export function eventRoutes(): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<unknown, ListQuery>>({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'Every event raised for your organisation, newest first, in the envelope webhooks deliver, whether or not a ' +
        'receiver was configured at the time. Use it to recover events your receiver missed. Filter by `type`.',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      query: listEventsQuery,
      responses: {
        200: {
          description: 'A page of events.',
          schema: eventListSchema,
          example: eventListExample,
        },
      },
      handler: async (_ctx, { db, auth, query }) => ({
        status: 200,
        body: await listEvents(db, auth.organizationId, query.type, { cursor: query.cursor, limit: query.limit }),
      }),
    }),
  ];
}
