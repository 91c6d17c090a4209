/** GET /v1/events (DECISIONS §4): every event of the organisation, newest first, to recover missed webhooks. */
import { EVENT_TYPES, type EventType } from '../../core/events/outbox';
import { listEvents } from '../../core/events/event-list';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';
import { pagedSchema, pageQueryProperties } from './webhook-deliveries';

const eventSchema = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    id: { type: 'string', description: 'Begins `evt_`; de-duplicate on it.' },
    type: { type: 'string', enum: EVENT_TYPES },
    createdAt: { type: 'string', format: 'date-time' },
    data: { type: 'object', description: 'The resources as the API returns them, e.g. `{debt}`.' },
  },
};

type Query = { cursor?: string; limit: number; type?: EventType };

export function eventRoutes(): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<unknown, Query>>({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'Every event raised for your organisation, newest first, in the envelope webhooks deliver, whether or not a ' +
        'receiver was configured at the time. Use it to recover events your receiver missed. Filter by `type`.',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { ...pageQueryProperties, type: { type: 'string', enum: EVENT_TYPES } },
      },
      responses: {
        200: {
          description: 'A page of events.',
          schema: pagedSchema(eventSchema),
          example: {
            data: [
              {
                id: 'evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
                type: 'test.ping',
                createdAt: '2026-11-22T09:00:00.050Z',
                data: {},
              },
            ],
            nextCursor: null,
          },
        },
      },
      handler: async (_ctx, { db, auth, query }) => ({
        status: 200,
        body: await listEvents(db, auth.organizationId, query.type, { cursor: query.cursor, limit: query.limit }),
      }),
    }),
  ];
}
