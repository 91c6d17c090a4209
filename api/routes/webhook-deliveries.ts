/** The delivery log (DECISIONS §4): list, inspect with attempts, and retry a Failed delivery. */
import { errors } from '../../core/platform/errors';
import { getDelivery, listDeliveries, retryDelivery, type DeliveryStatus } from '../../core/webhooks/deliveries';
import {
  defineApiRoute,
  type ApiMutationInput,
  type ApiRouteInput,
  type RouteDefinition,
} from '../http/route-definition';
import { idParams, type PageQuery } from '../schemas/common';
import {
  deliveryDetailExample,
  deliveryDetailSchema,
  deliveryListExample,
  deliveryListSchema,
  deliverySchema,
  listDeliveriesQuery,
  retriedDeliveryExample,
} from '../schemas/webhook-deliveries';

type ListQuery = PageQuery & { status?: DeliveryStatus; eventType?: string };
type IdInput = ApiRouteInput<unknown, Record<string, never>, { id: string }>;

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
      query: listDeliveriesQuery,
      responses: {
        200: {
          description: 'A page of deliveries.',
          schema: deliveryListSchema,
          example: deliveryListExample,
        },
      },
      handler: async (_ctx, { db, auth, query }) => {
        const { cursor, limit, status, eventType } = query;
        const page = await listDeliveries(db, auth.organizationId, { status, eventType }, { cursor, limit });
        return { status: 200, body: page };
      },
    }),
    defineApiRoute<IdInput>({
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
          schema: deliveryDetailSchema,
          example: deliveryDetailExample,
        },
      },
      handler: async (_ctx, { db, auth, params }) => {
        const delivery = await getDelivery(db, auth.organizationId, params.id);
        if (!delivery) throw errors.notFound('delivery');
        return { status: 200, body: delivery };
      },
    }),
    defineApiRoute<ApiMutationInput<unknown, Record<string, never>, { id: string }>>({
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
          example: retriedDeliveryExample,
        },
      },
      handler: async (_ctx, { trx, auth, params }) => ({
        status: 202,
        body: await retryDelivery(trx, auth.organizationId, params.id),
      }),
    }),
  ];
}
