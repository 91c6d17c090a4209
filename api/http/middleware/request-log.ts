/**
 * One structured log line per request. It names the request and its outcome only: never headers (they carry the
 * API key), never bodies or query strings (they can carry debtor contact data).
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../../core/platform/logger';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../route-definition';

export function requestLog(logger: Logger, metrics: ApiMetrics): Middleware<ApiState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const latencyMs = Number(process.hrtime.bigint() - ctx.state.startedAt) / 1e6;
      const route = ctx.state.route?.path ?? 'unmatched';
      metrics.requests.observe({ method: ctx.method, route, status: String(ctx.status) }, latencyMs / 1000);
      logger.info(
        {
          requestId: ctx.state.requestId,
          organizationId: ctx.state.organizationId,
          method: ctx.method,
          path: ctx.path,
          route: ctx.state.route?.path,
          status: ctx.status,
          latencyMs: Math.round(latencyMs * 100) / 100,
        },
        'request',
      );
    }
  };
}
