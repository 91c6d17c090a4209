/** Prometheus metrics of one API process (prom-client), one registry per app so tests can build several. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ApiMetrics {
  registry: Registry;
  requests: Histogram<'method' | 'route' | 'status'>;
  rateLimitFailOpen: Counter;
}

export function createMetrics(options: { collectProcessMetrics?: boolean } = {}): ApiMetrics {
  const registry = new Registry();
  if (options.collectProcessMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Histogram({
      name: 'client_api_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimitFailOpen: new Counter({
      name: 'client_api_rate_limit_fail_open_total',
      help: 'Requests served without a rate-limit check because Redis did not answer',
      registers: [registry],
    }),
  };
}
