import { expect } from 'chai';
import { isPublicAddress } from '../../core/webhooks/ssrf-guard';

describe('isPublicAddress (SSRF guard)', () => {
  const refused = [
    ['127.0.0.1', 'IPv4 loopback'],
    ['10.0.0.1', 'IPv4 private'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, as URL normalises it'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a00:1:1::5', '6to4 of 10.0.0.1'],
    ['2001::1', 'Teredo (client address obfuscated)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo with a public server'],
    ['64:ff9b:1::808:808', 'local-use NAT64 (RFC 8215)'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['100::1', 'discard'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'outside global unicast 2000::/3'],
  ] as const;
  for (const [address, why] of refused) {
    it(`refuses ${address} (${why})`, () => expect(isPublicAddress(address)).to.equal(false));
  }

  const allowed = [
    ['93.184.215.14', 'public IPv4'],
    ['2606:4700::1111', 'global unicast IPv6'],
    ['::ffff:93.184.215.14', 'IPv4-mapped public'],
    ['64:ff9b::5db8:d70e', 'NAT64 of a public IPv4'],
    ['2002:5db8:d70e::1', '6to4 of a public IPv4'],
  ] as const;
  for (const [address, why] of allowed) {
    it(`accepts ${address} (${why})`, () => expect(isPublicAddress(address)).to.equal(true));
  }

  it('refuses what is not an address', () => expect(isPublicAddress('example.com')).to.equal(false));
});
