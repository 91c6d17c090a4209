/**
 * The client's address, as every per-address limit reads it (`ctx.ip`: the failed-authentication limit, sandbox
 * sign-ups). The peer of the TCP connection, unless that peer is one of the configured trusted proxies
 * (`TRUSTED_PROXIES`): then `X-Forwarded-For` is read from the right, past every trusted proxy, and the first
 * address that is not one is the client. A header from any other peer is ignored, so a client cannot pick its own
 * address to dodge a limit or to lock another address out (docs/operators/scaling.md).
 */
import type { Socket } from 'node:net';
import type { ParameterizedContext } from 'koa';
import { isTrustedProxy, normalizeAddress, type AddressRange } from '../../../core/platform/trusted-proxies';
import type { ApiState } from '../route-definition';

export function clientAddressOf(
  trusted: readonly AddressRange[],
  peer: string,
  forwardedFor: string | undefined,
): string {
  const peerAddress = normalizeAddress(peer) ?? peer;
  if (trusted.length === 0 || !forwardedFor || !isTrustedProxy(trusted, peerAddress)) return peerAddress;
  const hops = forwardedFor.split(',').map((hop) => normalizeAddress(hop));
  let client = peerAddress;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === undefined) break; // a malformed entry: nothing left of it can be believed
    client = hop;
    if (!isTrustedProxy(trusted, hop)) break;
  }
  return client;
}

/** `ctx.request.ip` for every request: the client's address as `clientAddressOf` reads it. */
export function clientAddressResolver(trusted: readonly AddressRange[]): (ctx: ParameterizedContext<ApiState>) => void {
  // A connection's peer never changes, and parsing it costs a few µs (ipaddr.js), on every request's path: a
  // keep-alive connection's answer is kept with its socket. Only a request a trusted proxy forwarded reads its header.
  const peerAddressOf = new WeakMap<Socket, string>();
  return (ctx) => {
    const forwardedFor = trusted.length > 0 ? ctx.get('X-Forwarded-For') || undefined : undefined;
    if (forwardedFor) {
      ctx.request.ip = clientAddressOf(trusted, ctx.socket.remoteAddress ?? '', forwardedFor);
      return;
    }
    let peer = peerAddressOf.get(ctx.socket);
    if (peer === undefined) {
      peer = clientAddressOf(trusted, ctx.socket.remoteAddress ?? '', undefined);
      peerAddressOf.set(ctx.socket, peer);
    }
    ctx.request.ip = peer;
  };
}
