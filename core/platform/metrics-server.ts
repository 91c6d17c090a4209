/**
 * The Prometheus endpoint, on its own internal port (`METRICS_PORT`), never on the public API port: the metrics
 * name routes, error rates and queue health, which are for operators' scrapers only. A bare node server: `GET
 * /metrics` answers the registry (followed by `extraText()`, e.g. the Temporal SDK's own metrics), anything else 404.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from './logger';

export function createMetricsServer(registry: Registry, logger: Logger, extraText?: () => Promise<string>): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    Promise.all([registry.metrics(), extraText?.() ?? '']).then(
      ([text, extra]) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text + extra),
      (err: unknown) => {
        logger.error({ err: (err as Error).message }, 'metrics collection failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
}
