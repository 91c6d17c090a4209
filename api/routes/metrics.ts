/** GET /metrics: Prometheus text format for operators' scrapers. Expose it only on the internal network. */
import type { Registry } from 'prom-client';
import { defineRoute, type RouteDefinition } from '../http/route-definition';

export function metricsRoutes(registry: Registry): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of this API process',
      description: 'For operators. Block this path at the edge in production: it is meant for the internal scraper.',
      tags: ['Operations'],
      auth: { kind: 'none' },
      responses: {
        200: {
          description: 'Prometheus text exposition format.',
          schema: { type: 'string' },
          contentType: 'text/plain',
        },
      },
      handler: async () => ({ status: 200, body: await registry.metrics(), contentType: registry.contentType }),
    }),
  ];
}
