/**
 * Which webhook URLs we may send to (DECISIONS §4): absolute https (http only when the operator allows it), no
 * credentials, and a host whose every address is public unicast. Loopback, private, link-local, multicast,
 * unspecified, carrier-grade NAT, reserved and the like are refused, also when carried inside an IPv6 address. Hosts on the
 * operator's allow-list skip the address check (local development and tests only).
 * Checked when the URL is configured and again at every send, on the addresses actually connected to
 * (`guardedLookup`), so DNS rebinding cannot reach an internal address.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  allowHosts: string[];
  allowHttp: boolean;
}

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

const MAX_URL_LENGTH = 2048;

/**
 * True for addresses that are public unicast. IPv6 forms that carry an IPv4 address are judged by that address:
 * IPv4-compatible `::a.b.c.d` (::/96, deprecated but still routed to the IPv4 host by some stacks), IPv4-mapped
 * `::ffff:a.b.c.d`, the well-known NAT64 prefix 64:ff9b::/96 (last 32 bits) and 6to4 2002::/16 (bits 16 to 48).
 * Any other IPv6 address must be global unicast (2000::/3) that ipaddr.js calls `unicast`, which refuses by design:
 * Teredo 2001::/32 (the client's address is obfuscated, and a relay could reach anywhere), local-use NAT64
 * 64:ff9b:1::/48 (a network's own translator, its IPv4 position depends on the prefix length, RFC 8215),
 * documentation 2001:db8::/32 and 3fff::/20, benchmarking, ORCHID, discard and the other special ranges.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST);
}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** The IPv4 address an IPv4-embedding IPv6 address forwards to, or null for any other address. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts; // eight 16-bit groups
  const last32 = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  const zeroes = (from: number, to: number) => p.slice(from, to).every((group) => group === 0);
  if (zeroes(0, 5) && (p[5] === 0 || p[5] === 0xffff)) return last32(); // ::a.b.c.d, ::ffff:a.b.c.d (:: and ::1 too)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeroes(2, 6)) return last32(); // 64:ff9b::a.b.c.d (RFC 6052)
  if (p[0] === 0x2002) return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]); // RFC 3056
  return null;
}

/** `[::1]` → `::1`: URL keeps brackets around IPv6 literals. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export function isAllowListed(hostname: string, policy: UrlPolicy): boolean {
  const host = bareHost(hostname);
  return policy.allowHosts.some((allowed) => bareHost(allowed) === host);
}

/** Syntax and scheme only; throws UnsafeUrlError. Returns the parsed URL. */
export function parseWebhookUrl(input: string, policy: UrlPolicy): URL {
  if (input.length > MAX_URL_LENGTH) throw new UnsafeUrlError(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UnsafeUrlError('The URL is not an absolute URL.');
  }
  const httpAllowed = policy.allowHttp && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) throw new UnsafeUrlError('The URL must use https.');
  if (url.username || url.password) throw new UnsafeUrlError('The URL must not carry credentials.');
  if (!url.hostname) throw new UnsafeUrlError('The URL has no host.');
  return url;
}

/** Every address a host name resolves to; throws UnsafeUrlError when it does not resolve. Injectable for tests. */
export type ResolveHost = (host: string) => Promise<string[]>;

/** Full check at configuration time: syntax, scheme, and every address the host resolves to. */
export async function assertPublicWebhookUrl(
  input: string,
  policy: UrlPolicy,
  resolveHost: ResolveHost = resolveAll,
): Promise<URL> {
  const url = parseWebhookUrl(input, policy);
  if (isAllowListed(url.hostname, policy)) return url;
  const host = bareHost(url.hostname);
  const addresses = isIP(host) ? [host] : await resolveHost(host);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new UnsafeUrlError('The URL’s host resolves to a non-public address.');
  }
  return url;
}

/** The system resolver (`dns.lookup`, as the HTTP client connects). */
export async function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => {
      if (!err) return resolve(addresses.map((a) => a.address));
      if (err.code === 'ENOTFOUND' || err.code === 'ENODATA')
        reject(new UnsafeUrlError('The URL’s host does not resolve.'));
      else reject(err);
    });
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for the HTTP client's connect step: resolves as usual, then refuses the connection if
 * any address is not public. Answers in whichever form the caller asked for (`all` or one address).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const unsafe = addresses.find((a) => !isPublicAddress(a.address));
    if (unsafe || addresses.length === 0) {
      const blocked = Object.assign(new UnsafeUrlError(`${hostname} resolves to a non-public address`), {
        code: 'ERR_WEBHOOK_ADDRESS_BLOCKED',
      });
      return callback(blocked, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
