/**
 * Whether a request came over https where TLS ends at a proxy. The app runs with Koa's `proxy: false`, so Koa
 * believes only the socket (a TLS socket is https); this layer also believes `X-Forwarded-Proto`, but only from a
 * peer that is one of the trusted proxies (`TRUSTED_PROXIES`), the same rule as the client's address
 * (client-address.ts). From anyone else the header is ignored: a client cannot make a plain-HTTP request look secure.
 *
 * What it decides is Koa's own `ctx.protocol` (and so `ctx.secure`), which the `cookies` module reads before it sets
 * a `Secure` cookie, and which the same-origin check reads to build the origin a request was addressed to.
 */
import type { ParameterizedContext } from 'koa';
import { isTrustedProxy, type AddressRange } from '../../../core/platform/trusted-proxies';
import type { ApiState } from '../route-definition';

/**
 * The protocol a trusted proxy says the client used: the last entry of `X-Forwarded-Proto` (a proxy that appends
 * writes its own last; HAProxy, Caddy and nginx can overwrite it with theirs), or undefined when the header is not
 * to be believed.
 */
export function forwardedProtocolOf(
  trusted: readonly AddressRange[],
  peer: string,
  forwardedProto: string | undefined,
): 'http' | 'https' | undefined {
  if (trusted.length === 0 || !forwardedProto) return undefined;
  if (!isTrustedProxy(trusted, peer)) return undefined;
  const last = forwardedProto.split(',').pop()!.trim().toLowerCase();
  return last === 'https' || last === 'http' ? last : undefined;
}

/** Sets the request's protocol from a trusted proxy's `X-Forwarded-Proto`; otherwise Koa's (the socket's) stands. */
export function forwardedProtocolResolver(
  trusted: readonly AddressRange[],
): (ctx: ParameterizedContext<ApiState>) => void {
  if (trusted.length === 0) return () => undefined;
  return (ctx) => {
    const header = ctx.get('X-Forwarded-Proto');
    if (!header || (ctx.socket as { encrypted?: boolean }).encrypted) return;
    const protocol = forwardedProtocolOf(trusted, ctx.socket.remoteAddress ?? '', header);
    // An own property of this request's object shadows Koa's getter (request.protocol; request.secure reads it).
    if (protocol) Object.defineProperty(ctx.request, 'protocol', { value: protocol, enumerable: true });
  };
}
