/**
 * Which webhook URLs we may send to (DECISIONS §4): absolute https (http only when the operator allows it), no
 * credentials, and a host whose every address is public unicast. Loopback, private, link-local, multicast,
 * unspecified, carrier-grade NAT, reserved and the like are refused, IPv4-mapped IPv6 included. Hosts on the
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

/** True for addresses that are public unicast; IPv4-mapped IPv6 is judged as the IPv4 address it carries. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
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
