/**
 * One structured log line per request. It names the request and its outcome only: never headers (they carry the
 * API key), never bodies or query strings (they can carry debtor contact data).
 */
import type { ParameterizedContext } from 'koa';
import type { Logger } from '../../../core/platform/logger';
import type { ApiMetrics } from '../metrics';
import type { ApiState } from '../route-definition';

/** Writes a finished request's line and observes its latency (`startRequest` noted when it began). */
export function requestLogger(logger: Logger, metrics: ApiMetrics): (ctx: ParameterizedContext<ApiState>) => void {
  const accessLog = withoutRedaction(logger);
  // The histogram's series for one method, route and status, found once: prom-client hashes a label object on
  // every observe otherwise. Bounded: methods are HTTP's, routes are templates (or `unmatched`), statuses are few.
  const series = new Map<string, { observe(seconds: number): void }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) series.set(key, (found = metrics.requests.labels({ method, route, status })));
    return found;
  };
  return (ctx) => {
    const latencyMs = Number(process.hrtime.bigint() - ctx.state.startedAt) / 1e6;
    const route = ctx.state.route?.path ?? 'unmatched';
    seriesOf(ctx.method, route, String(ctx.status)).observe(latencyMs / 1000);
    accessLog.info(
      {
        requestId: ctx.state.requestId,
        organizationId: ctx.state.organizationId,
        method: ctx.method,
        path: loggablePath(ctx.path),
        route: ctx.state.route?.path,
        status: ctx.status,
        latencyMs: Math.round(latencyMs * 100) / 100,
      },
      'request',
    );
  };
}

/**
 * Every secret we put in a URL path (a portal link's token, an opt-out token, …) is 32 random bytes in base64url:
 * 43 characters or more of [A-Za-z0-9_-] in one segment. A segment of that shape is logged as `:secret`, whatever
 * the route, so a new secret path needs no entry in a list; ids (UUIDs, 36 characters) stay readable.
 */
const SECRET_SEGMENT = /(?<=\/)[A-Za-z0-9_-]{43,}(?=\/|$)/g;

export function loggablePath(path: string): string {
  return path.replace(SECRET_SEGMENT, ':secret');
}

/**
 * The request line's fields are the ones above, none of them a header, a body or a credential, so it skips the
 * redaction pass the service's logger runs over every line: on the busiest line of all, that pass cost more than
 * writing the line (4–6 µs of 7–9). Every other line of the logger is still redacted.
 */
export function withoutRedaction(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}
