/** JSON Schemas and examples of the delivery log: list, inspect with attempts, retry. */
import { EVENT_TYPES } from '../../core/events/outbox';
import { DELIVERY_STATUSES } from '../../core/webhooks/deliveries';
import type { JsonSchema } from '../http/route-definition';
import { pagedListSchema, pageQueryProperties, timestampSchema, uuidSchema } from './common';

const nullableTime: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

export const deliverySchema = {
  type: 'object',
  required: ['id', 'eventId', 'eventType', 'url', 'status', 'attemptCount', 'requestId', 'createdAt', 'updatedAt'],
  properties: {
    id: { ...uuidSchema, description: 'Sent as `Service-Delivery-Id` on every attempt.' },
    eventId: { type: 'string' },
    eventType: { type: 'string', enum: EVENT_TYPES },
    url: { type: 'string', description: 'The receiver URL when the delivery was enqueued.' },
    status: { type: 'string', enum: DELIVERY_STATUSES },
    attemptCount: { type: 'integer' },
    lastAttemptAt: nullableTime,
    nextAttemptAt: { ...nullableTime, description: 'When the next retry is due, while Pending after a failure.' },
    requestId: {
      type: ['string', 'null'],
      description: 'The `X-Request-Id` of the API request that caused the event; null when none did.',
    },
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
};

const attemptSchema: JsonSchema = {
  type: 'object',
  required: ['number', 'startedAt', 'url', 'succeeded', 'httpStatus', 'latencyMs', 'error', 'responseBody'],
  properties: {
    number: { type: 'integer', description: '1-based, across manual retries.' },
    startedAt: timestampSchema,
    url: { type: 'string' },
    succeeded: { type: 'boolean' },
    httpStatus: { type: ['integer', 'null'], description: 'Null when no answer came (timeout, network error).' },
    latencyMs: { type: 'integer' },
    error: { type: ['string', 'null'] },
    responseBody: { type: ['string', 'null'], description: 'The first 1 KiB of your receiver’s answer.' },
  },
};

export const deliveryDetailSchema: JsonSchema = {
  ...deliverySchema,
  required: [...deliverySchema.required, 'attempts'],
  properties: { ...deliverySchema.properties, attempts: { type: 'array', items: attemptSchema } },
};

export const listDeliveriesQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    status: { type: 'string', enum: DELIVERY_STATUSES },
    eventType: { type: 'string', enum: EVENT_TYPES },
  },
};

export const deliveryListSchema = pagedListSchema(deliverySchema);

export const deliveryExample = {
  id: '0193a1b2-c3d4-7e8f-9a0b-1c2d3e4f5a6c',
  eventId: 'evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
  eventType: 'debt.created',
  url: 'https://hooks.example.com/debt-events',
  status: 'Pending',
  attemptCount: 1,
  lastAttemptAt: '2026-11-22T09:00:00.120Z',
  nextAttemptAt: '2026-11-22T09:01:00.480Z',
  requestId: 'req_5f0c6a3e9b2d4c71a8e1f0d2b3c4a5e6',
  createdAt: '2026-11-22T09:00:00.050Z',
  updatedAt: '2026-11-22T09:00:00.480Z',
};

const attemptExample = {
  number: 1,
  startedAt: '2026-11-22T09:00:00.120Z',
  url: 'https://hooks.example.com/debt-events',
  succeeded: false,
  httpStatus: 503,
  latencyMs: 358,
  error: 'HTTP 503',
  responseBody: 'upstream unavailable',
};

export const deliveryListExample = { data: [deliveryExample], nextCursor: null };
export const deliveryDetailExample = { ...deliveryExample, attempts: [attemptExample] };
export const retriedDeliveryExample = { ...deliveryExample, attemptCount: 7, nextAttemptAt: null };
