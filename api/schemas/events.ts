/** JSON Schemas and examples of the event list. */
import { EVENT_TYPES } from '../../core/events/outbox';
import type { JsonSchema } from '../http/route-definition';
import { pagedListSchema, pageQueryProperties, timestampSchema } from './common';

export const eventSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data', 'requestId'],
  properties: {
    id: { type: 'string', description: 'Begins `evt_`; de-duplicate on it.' },
    type: { type: 'string', enum: EVENT_TYPES },
    createdAt: timestampSchema,
    data: { type: 'object', description: 'The resources as the API returns them, e.g. `{debt}`.' },
    requestId: {
      type: ['string', 'null'],
      description:
        'The `X-Request-Id` of the API request that caused the event; null when none did (e.g. a plan defaulting). ' +
        'Listed only: the delivered envelope has exactly `id`, `type`, `createdAt` and `data`.',
    },
  },
};

export const listEventsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pageQueryProperties, type: { type: 'string', enum: EVENT_TYPES } },
};

export const eventListSchema = pagedListSchema(eventSchema);

export const eventListExample = {
  data: [
    {
      id: 'evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
      type: 'test.ping',
      createdAt: '2026-11-22T09:00:00.050Z',
      data: {},
      requestId: 'req_5f0c6a3e9b2d4c71a8e1f0d2b3c4a5e6',
    },
  ],
  nextCursor: null,
};

export const eventExample = eventListExample.data[0]!;

/** Path `{id}`: an event id (`evt_…`); any other string is simply not found. */
export const eventIdParams: JsonSchema = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', description: 'The event id (`evt_…`).' } },
};
