/**
 * The Prometheus endpoint, on its own internal port (`METRICS_PORT`), never on the public API port: the metrics
 * name routes, error rates and queue health, which are for operators' scrapers only. A bare node server: `GET
 * /metrics` answers the registry, anything else 404.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from './logger';

export function createMetricsServer(registry: Registry, logger: Logger): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (err: unknown) => {
        logger.error({ err: (err as Error).message }, 'metrics collection failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
}
