import { expect } from 'chai';
import { clientAddressOf } from '../../api/http/middleware/client-address';
import { ConfigError, loadConfig } from '../../core/platform/config';
import { isTrustedProxy, normalizeAddress, parseTrustedProxies } from '../../core/platform/trusted-proxies';

describe('the client address: X-Forwarded-For only from trusted proxies (TRUSTED_PROXIES)', () => {
  const trusted = parseTrustedProxies('10.0.0.0/8, 192.0.2.7, fd00::/8');

  it('validates TRUSTED_PROXIES at start-up, naming the bad entry; none trusted by default', () => {
    expect(loadConfig({ APP_ENV: 'test' }).trustedProxies).to.deep.equal([]);
    expect(loadConfig({ APP_ENV: 'test', TRUSTED_PROXIES: '10.0.0.0/8,::1' }).trustedProxies).to.have.length(2);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1, 300.1.1.1']) {
      expect(() => loadConfig({ APP_ENV: 'test', TRUSTED_PROXIES: bad })).to.throw(ConfigError, /TRUSTED_PROXIES/);
    }
  });

  it('is the peer when the peer is not trusted, whatever the header says', () => {
    expect(clientAddressOf(trusted, '198.51.100.1', '203.0.113.5')).to.equal('198.51.100.1');
    expect(clientAddressOf([], '10.0.0.1', '203.0.113.5')).to.equal('10.0.0.1');
  });

  it('is the rightmost untrusted hop when the peer is trusted', () => {
    expect(clientAddressOf(trusted, '10.0.0.1', '203.0.113.5')).to.equal('203.0.113.5');
    expect(clientAddressOf(trusted, '::ffff:10.0.0.1', '1.1.1.1, 203.0.113.5, 192.0.2.7')).to.equal('203.0.113.5');
    expect(clientAddressOf(trusted, 'fd00::2', ' ::ffff:203.0.113.5 ')).to.equal('203.0.113.5');
    // Only trusted hops: the leftmost is as far as anyone can see. No header: the proxy itself.
    expect(clientAddressOf(trusted, '10.0.0.1', '10.0.0.9, 10.0.0.8')).to.equal('10.0.0.9');
    expect(clientAddressOf(trusted, '10.0.0.1', undefined)).to.equal('10.0.0.1');
  });

  it('stops at a malformed entry rather than believing what lies beyond it', () => {
    expect(clientAddressOf(trusted, '10.0.0.1', '203.0.113.5, garbage, 10.0.0.3')).to.equal('10.0.0.3');
  });

  it('answers an address asked again the same way, for each list of proxies apart (the answers are kept)', () => {
    const other = parseTrustedProxies('203.0.113.0/24');
    for (let round = 0; round < 2; round++) {
      expect(isTrustedProxy(trusted, '10.1.2.3')).to.equal(true);
      expect(isTrustedProxy(other, '10.1.2.3')).to.equal(false);
      expect(isTrustedProxy(other, '203.0.113.5')).to.equal(true);
      expect(isTrustedProxy(trusted, '203.0.113.5')).to.equal(false);
      expect(isTrustedProxy(trusted, 'garbage')).to.equal(false);
      expect(normalizeAddress(' ::ffff:203.0.113.5 ')).to.equal('203.0.113.5');
      expect(normalizeAddress('garbage')).to.equal(undefined);
    }
  });
});
