import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createSecretBox } from '../../core/platform/secret-box';
import { isPublicAddress } from '../../core/webhooks/ssrf-guard';
import { computeSignature, signatureHeader } from '../../core/webhooks/signature';
import { mintWebhookSecret } from '../../core/webhooks/receiver-config';
import { verifySignature } from '../support/webhook-receiver';

describe('webhook signing, secrets at rest and address policy (unit)', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"id":"evt_1","type":"test.ping","createdAt":"2026-11-22T09:00:00.000Z","data":{}}';

  it('signs t=<unix>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>"> keyed with the whole whsec_ string', () => {
    const at = new Date('2026-11-22T09:00:00.000Z');
    const header = signatureHeader(secret, body, at);
    expect(header).to.match(/^t=1795338000,v1=[0-9a-f]{64}$/);
    // Known answer, computed independently: printf '%s' "1795338000.$body" | openssl dgst -sha256 -hmac "$secret"
    const expected = '4a0f1b861d78e1b6893c3d684bd4b525697c4844e2e8d38ce19a7442b20c8747';
    expect(header).to.equal(`t=1795338000,v1=${expected}`);
    expect(computeSignature(secret, 1795338000, body)).to.equal(expected);
  });

  it('is accepted by the independent receiver, and refused with a wrong secret, a changed body or a stale timestamp', () => {
    const header = signatureHeader(secret, body);
    expect(verifySignature(header, body, secret)).to.include({ ok: true });
    expect(verifySignature(header, body, `${secret}x`)).to.deep.equal({ ok: false, reason: 'signature mismatch' });
    expect(verifySignature(header, `${body} `, secret)).to.deep.equal({ ok: false, reason: 'signature mismatch' });
    const old = signatureHeader(secret, body, new Date(Date.now() - 301_000));
    expect(verifySignature(old, body, secret)).to.deep.equal({ ok: false, reason: 'timestamp out of tolerance' });
    const edge = signatureHeader(secret, body, new Date(Date.now() - 299_000));
    expect(verifySignature(edge, body, secret).ok).to.equal(true);
  });

  it('mints whsec_ secrets with 256 random bits', () => {
    const a = mintWebhookSecret();
    expect(a).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(mintWebhookSecret()).not.to.equal(a);
  });

  it('seals secrets with AES-256-GCM bound to the organisation: another key, organisation or byte fails to open', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal(secret, 'org-1');
    expect(sealed.iv).to.have.length(12);
    expect(sealed.tag).to.have.length(16);
    expect(sealed.ciphertext.toString('latin1')).not.to.contain('MfKQ');
    expect(box.open(sealed, 'org-1')).to.equal(secret);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'org-1')).to.throw();
    expect(() => box.open(sealed, 'org-2')).to.throw();
    const tampered = { ...sealed, ciphertext: Buffer.from(sealed.ciphertext) };
    tampered.ciphertext[0] = tampered.ciphertext[0]! ^ 1;
    expect(() => box.open(tampered, 'org-1')).to.throw();
    expect(box.seal(secret, 'org-1').iv.equals(sealed.iv)).to.equal(false);
    expect(() => createSecretBox(randomBytes(16)), 'a key of the wrong length').to.throw(/32 bytes/);
  });

  it('counts only public unicast addresses as public, judging IPv4-mapped IPv6 as IPv4', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) {
      expect(isPublicAddress(address), address).to.equal(true);
    }
    const blocked = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-address',
    ];
    for (const address of blocked) expect(isPublicAddress(address), address).to.equal(false);
  });
});
