/** GET /v1/events (DECISIONS §4): every event of the organisation, newest first, to recover missed webhooks. */
import type { EventType } from '../../core/events/outbox';
import { getEventJson, listEvents } from '../../core/events/event-list';
import { errors } from '../../core/platform/errors';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';
import type { PageQuery } from '../schemas/common';
import {
  eventExample,
  eventIdParams,
  eventListExample,
  eventListSchema,
  eventSchema,
  listEventsQuery,
} from '../schemas/events';

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
    defineApiRoute<ApiRouteInput<undefined, Record<string, never>, { id: string }>>({
      method: 'get',
      path: '/v1/events/{id}',
      operationId: 'getEvent',
      summary: 'Get an event',
      description: 'One event, as listed: e.g. to check a webhook you received against what was raised.',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      params: eventIdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The event.', schema: eventSchema, example: eventExample } },
      handler: async (_ctx, { db, auth, params }) => {
        const json = await getEventJson(db, auth.organizationId, params.id);
        if (json === undefined) throw errors.notFound('event');
        return { status: 200, body: json, contentType: 'application/json; charset=utf-8' };
      },
    }),
  ];
}
