/**
 * What every request gets before and after everything else, in one layer (each layer of the stack is paid on every
 * request, the cheapest included): the client's address (client-address.ts) and protocol (forwarded-protocol.ts),
 * the request id (request-id.ts), and,
 * once answered or failed, its log line and latency (request-log.ts).
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../../core/platform/logger';
import type { AddressRange } from '../../../core/platform/trusted-proxies';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../route-definition';
import { clientAddressResolver } from './client-address';
import { forwardedProtocolResolver } from './forwarded-protocol';
import { startRequest } from './request-id';
import { requestLogger } from './request-log';

export function requestFrame(options: {
  trustedProxies: readonly AddressRange[];
  logger: Logger;
  metrics: ApiMetrics;
}): Middleware<ApiState> {
  const resolveClientAddress = clientAddressResolver(options.trustedProxies);
  const resolveProtocol = forwardedProtocolResolver(options.trustedProxies);
  const logRequest = requestLogger(options.logger, options.metrics);
  return async (ctx, next) => {
    resolveClientAddress(ctx);
    resolveProtocol(ctx);
    startRequest(ctx);
    try {
      await next();
    } finally {
      logRequest(ctx);
    }
  };
}
