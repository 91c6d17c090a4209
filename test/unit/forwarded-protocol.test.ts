/** Which `X-Forwarded-Proto` the app believes (api/http/middleware/forwarded-protocol.ts): a trusted proxy's only. */
import { expect } from 'chai';
import { forwardedProtocolOf } from '../../api/http/middleware/forwarded-protocol';
import { parseTrustedProxies } from '../../core/platform/trusted-proxies';

describe('forwardedProtocolOf', () => {
  const trusted = parseTrustedProxies('10.0.0.0/8, ::1');

  it('believes a trusted proxy (IPv4, IPv4-mapped IPv6, IPv6)', () => {
    expect(forwardedProtocolOf(trusted, '10.1.2.3', 'https')).to.equal('https');
    expect(forwardedProtocolOf(trusted, '::ffff:10.1.2.3', 'https')).to.equal('https');
    expect(forwardedProtocolOf(trusted, '::1', 'http')).to.equal('http');
  });

  it('ignores the header from any other peer, or with no proxy trusted', () => {
    expect(forwardedProtocolOf(trusted, '192.0.2.7', 'https')).to.equal(undefined);
    expect(forwardedProtocolOf([], '10.1.2.3', 'https')).to.equal(undefined);
    expect(forwardedProtocolOf(trusted, 'not-an-address', 'https')).to.equal(undefined);
  });

  it('reads the entry the nearest proxy wrote (the last), case-insensitively; anything else is not believed', () => {
    expect(forwardedProtocolOf(trusted, '10.1.2.3', 'http, HTTPS')).to.equal('https');
    expect(forwardedProtocolOf(trusted, '10.1.2.3', 'https, http')).to.equal('http');
    expect(forwardedProtocolOf(trusted, '10.1.2.3', 'wss')).to.equal(undefined);
    expect(forwardedProtocolOf(trusted, '10.1.2.3', '')).to.equal(undefined);
  });
});
