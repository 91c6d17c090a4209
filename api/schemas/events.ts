/** JSON Schemas and examples of the event list. */
import { EVENT_TYPES } from '../../core/events/outbox';
import type { JsonSchema } from '../http/route-definition';
import { pagedListSchema, pageQueryProperties, timestampSchema } from './common';

const eventSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    id: { type: 'string', description: 'Begins `evt_`; de-duplicate on it.' },
    type: { type: 'string', enum: EVENT_TYPES },
    createdAt: timestampSchema,
    data: { type: 'object', description: 'The resources as the API returns them, e.g. `{debt}`.' },
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
    },
  ],
  nextCursor: null,
};
