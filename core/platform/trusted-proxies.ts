/**
 * The proxies whose `X-Forwarded-For` the API believes (`TRUSTED_PROXIES`, docs/operators/configuration.md): addresses and
 * CIDR ranges, IPv4 or IPv6. Parsed once at start-up, where a bad entry stops the process with its name.
 */
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

export type AddressRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses a comma-separated list (`10.0.0.0/8, 192.0.2.7, fd00::/8`); an empty string trusts no proxy. */
export function parseTrustedProxies(input: string): AddressRange[] {
  return input
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(parseRange);
}

function parseRange(entry: string): AddressRange {
  if (entry.includes('/')) {
    if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not an address or a CIDR range`);
    const [address, bits] = ipaddr.parseCIDR(entry);
    const plain = normalize(address);
    const unwrapped = plain.kind() === address.kind() ? 0 : 96; // ::ffff:a.b.c.d/n is a.b.c.d/(n - 96)
    if (bits < unwrapped) throw new Error(`"${entry}" reaches beyond the IPv4-mapped range`);
    return [plain, bits - unwrapped];
  }
  if (!ipaddr.isValid(entry)) throw new Error(`"${entry}" is not an address or a CIDR range`);
  const address = normalize(ipaddr.parse(entry));
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a dual-stack socket reports) as the IPv4 address it is. */
function normalize(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/**
 * Each address's answers, kept: behind a proxy every request carries its peer's and its client's addresses, and
 * ipaddr.js spends tens of µs validating and parsing one (a fifth of `GET /v1/organization`'s whole cost through the
 * production profile's proxy, docs/operators/performance.md). Bounded, least recently used out first: a header's
 * addresses come from whoever sent the request.
 */
const plainAddresses = new LRUCache<string, { plain: string } | { plain: undefined }>({ max: 10_000 });
const trustedAddresses = new WeakMap<readonly AddressRange[], LRUCache<string, boolean>>();

/** The address in its plain form (IPv4-mapped IPv6 unwrapped), or undefined when it is not an IP address. */
export function normalizeAddress(input: string): string | undefined {
  const known = plainAddresses.get(input);
  if (known) return known.plain;
  const trimmed = input.trim();
  const plain = ipaddr.isValid(trimmed) ? normalize(ipaddr.parse(trimmed)).toString() : undefined;
  plainAddresses.set(input, { plain });
  return plain;
}

export function isTrustedProxy(ranges: readonly AddressRange[], address: string): boolean {
  let answers = trustedAddresses.get(ranges);
  if (answers === undefined) trustedAddresses.set(ranges, (answers = new LRUCache({ max: 10_000 })));
  let trusted = answers.get(address);
  if (trusted === undefined) {
    trusted = matchesRange(ranges, address);
    answers.set(address, trusted);
  }
  return trusted;
}

function matchesRange(ranges: readonly AddressRange[], address: string): boolean {
  const plain = normalizeAddress(address);
  if (plain === undefined) return false;
  const parsed = ipaddr.parse(plain);
  return ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match([base, bits] as never));
}
