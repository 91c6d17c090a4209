/**
 * The delivery activity's metrics: each attempt's latency by outcome, and each delivery once it reaches a final
 * status. Created once per registry (prom-client's default in a worker, shared by its modes).
 */
import { register, type Registry } from 'prom-client';
import { counterOnce, histogramOnce } from '../core/platform/process-metrics';

export const ATTEMPT_BUCKETS_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function webhookDeliveryMetrics(registry: Registry = register) {
  return {
    attemptSeconds: histogramOnce(registry, {
      name: 'client_api_webhook_attempt_duration_seconds',
      help: 'Time from sending a webhook attempt to its answer (or timeout), by outcome',
      labelNames: ['mode', 'outcome'] as const,
      buckets: ATTEMPT_BUCKETS_SECONDS,
    }),
    finished: counterOnce(registry, {
      name: 'client_api_webhook_deliveries_finished_total',
      help: 'Webhook deliveries that reached a final status (Succeeded or Failed)',
      labelNames: ['mode', 'status'] as const,
    }),
  };
}
