/** The delivery log (DECISIONS §4): list, inspect with attempts, and retry a Failed delivery. */
import { errors } from '../../core/platform/errors';
import { EVENT_TYPES } from '../../core/events/outbox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../core/platform/pagination';
import {
  DELIVERY_STATUSES,
  getDelivery,
  listDeliveries,
  retryDelivery,
  type DeliveryStatus,
} from '../../core/webhooks/deliveries';
import { idParams } from '../schemas/common';
import { defineApiRoute, type ApiRouteInput, type RouteDefinition } from '../http/route-definition';

export const pageQueryProperties = {
  cursor: { type: 'string', maxLength: 1024, description: '`nextCursor` of the previous page.' },
  limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
};

export function pagedSchema(item: Record<string, unknown>) {
  return {
    type: 'object',
    required: ['data', 'nextCursor'],
    properties: { data: { type: 'array', items: item }, nextCursor: { type: ['string', 'null'] } },
  };
}

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

const deliverySchema = {
  type: 'object',
  required: ['id', 'eventId', 'eventType', 'url', 'status', 'attemptCount', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Sent as `Service-Delivery-Id` on every attempt.' },
    eventId: { type: 'string' },
    eventType: { type: 'string', enum: EVENT_TYPES },
    url: { type: 'string', description: 'The receiver URL when the delivery was enqueued.' },
    status: { type: 'string', enum: DELIVERY_STATUSES },
    attemptCount: { type: 'integer' },
    lastAttemptAt: nullableTime,
    nextAttemptAt: { ...nullableTime, description: 'When the next retry is due, while Pending after a failure.' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const attemptSchema = {
  type: 'object',
  required: ['number', 'startedAt', 'url', 'succeeded', 'httpStatus', 'latencyMs', 'error', 'responseBody'],
  properties: {
    number: { type: 'integer', description: '1-based, across manual retries.' },
    startedAt: { type: 'string', format: 'date-time' },
    url: { type: 'string' },
    succeeded: { type: 'boolean' },
    httpStatus: { type: ['integer', 'null'], description: 'Null when no answer came (timeout, network error).' },
    latencyMs: { type: 'integer' },
    error: { type: ['string', 'null'] },
    responseBody: { type: ['string', 'null'], description: 'The first 1 KiB of your receiver’s answer.' },
  },
};

const exampleDelivery = {
  id: '0193a1b2-c3d4-7e8f-9a0b-1c2d3e4f5a6c',
  eventId: 'evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
  eventType: 'debt.created',
  url: 'https://hooks.example.com/debt-events',
  status: 'Pending',
  attemptCount: 1,
  lastAttemptAt: '2026-11-22T09:00:00.120Z',
  nextAttemptAt: '2026-11-22T09:01:00.480Z',
  createdAt: '2026-11-22T09:00:00.050Z',
  updatedAt: '2026-11-22T09:00:00.480Z',
};

const exampleAttempt = {
  number: 1,
  startedAt: '2026-11-22T09:00:00.120Z',
  url: 'https://hooks.example.com/debt-events',
  succeeded: false,
  httpStatus: 503,
  latencyMs: 358,
  error: 'HTTP 503',
  responseBody: 'upstream unavailable',
};

type ListQuery = { cursor?: string; limit: number; status?: DeliveryStatus; eventType?: string };

export function webhookDeliveryRoutes(): RouteDefinition[] {
  return [
    defineApiRoute<ApiRouteInput<unknown, ListQuery>>({
      method: 'get',
      path: '/v1/webhooks/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List webhook deliveries',
      description: 'Newest first. Filter by `status` and `eventType`.',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...pageQueryProperties,
          status: { type: 'string', enum: DELIVERY_STATUSES },
          eventType: { type: 'string', enum: EVENT_TYPES },
        },
      },
      responses: {
        200: {
          description: 'A page of deliveries.',
          schema: pagedSchema(deliverySchema),
          example: { data: [exampleDelivery], nextCursor: null },
        },
      },
      handler: async (_ctx, { db, auth, query }) => {
        const { cursor, limit, status, eventType } = query;
        const page = await listDeliveries(db, auth.organizationId, { status, eventType }, { cursor, limit });
        return { status: 200, body: page };
      },
    }),
    defineApiRoute<ApiRouteInput<unknown, Record<string, unknown>, { id: string }>>({
      method: 'get',
      path: '/v1/webhooks/deliveries/{id}',
      operationId: 'getWebhookDelivery',
      summary: 'A webhook delivery with its attempts',
      description: 'Each attempt: when, to which URL, HTTP status, latency, error and the first 1 KiB of the answer.',
      tags: ['Webhooks'],
      scope: 'webhooks:read',
      params: idParams,
      errors: ['not_found'],
      responses: {
        200: {
          description: 'The delivery.',
          schema: {
            ...deliverySchema,
            required: [...deliverySchema.required, 'attempts'],
            properties: { ...deliverySchema.properties, attempts: { type: 'array', items: attemptSchema } },
          },
          example: { ...exampleDelivery, attempts: [exampleAttempt] },
        },
      },
      handler: async (_ctx, { db, auth, params }) => {
        const delivery = await getDelivery(db, auth.organizationId, params.id);
        if (!delivery) throw errors.notFound('delivery');
        return { status: 200, body: delivery };
      },
    }),
    defineApiRoute<ApiRouteInput<unknown, Record<string, unknown>, { id: string }>>({
      method: 'post',
      path: '/v1/webhooks/deliveries/{id}/retry',
      operationId: 'retryWebhookDelivery',
      summary: 'Retry a Failed delivery',
      description:
        'Delivers a `Failed` delivery again, with the same delivery id and the whole retry schedule. Any other ' +
        'status answers `409 invalid_state`.',
      tags: ['Webhooks'],
      scope: 'webhooks:write',
      params: idParams,
      errors: ['not_found', 'invalid_state'],
      responses: {
        202: {
          description: 'The delivery is Pending again and under way.',
          schema: deliverySchema,
          example: { ...exampleDelivery, attemptCount: 7, nextAttemptAt: null },
        },
      },
      handler: async (_ctx, { db, auth, params }) => ({
        status: 202,
        body: await retryDelivery(db, auth.organizationId, params.id),
      }),
    }),
  ];
}
