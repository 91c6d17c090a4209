/**
 * One structured log line per request. It names the request and its outcome only: never headers (they carry the
 * API key), never bodies or query strings (they can carry debtor contact data).
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../core/logger';
import type { ApiState } from '../route';

export function requestLog(logger: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const latencyMs = Number(process.hrtime.bigint() - ctx.state.startedAt) / 1e6;
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
