import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { startTestServer, type TestServer } from '../support/app';
import { testDb } from '../support/resources';
import { jsonHeaders, mintKey } from '../support/tenants';
import { foundRow } from '../support/rows';
import { sealedSecretOf } from '../../core/platform/secret-box';

const PUBLIC_URL = 'https://93.184.215.14/hooks'; // a public address literal: no DNS needed

async function put(server: TestServer, tenant: { headers: Record<string, string> }, body: unknown) {
  const res = await fetch(`${server.baseUrl}/v1/webhooks`, {
    method: 'PUT',
    headers: jsonHeaders(tenant),
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(server: TestServer, tenant: { headers: Record<string, string> }) {
  const res = await fetch(`${server.baseUrl}/v1/webhooks`, { headers: tenant.headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('webhook configuration API (GET/PUT /v1/webhooks, POST /v1/webhooks/test)', () => {
  const ctx = useApiSuite();
  // No relay runs here; leave no Pending delivery for a later test's relay to start.
  afterEach(async () => {
    await testDb()('webhook_deliveries').where({ organization_id: ctx.tenant.organization.id }).delete();
  });

  it('answers url null, enabled false and no prefix before anything is configured', async () => {
    expect(await get(ctx.server, ctx.tenant)).to.deep.equal({
      status: 200,
      body: { url: null, enabled: false, secretPrefix: null },
    });
  });

  it('mints a whsec_ secret on first configure, returns it once, and shows only its 12-character prefix after', async () => {
    const first = await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    expect(first.status).to.equal(200);
    const secret = first.body.newSecret as string;
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(first.body).to.deep.equal({
      url: PUBLIC_URL,
      enabled: true,
      secretPrefix: secret.slice(0, 12),
      newSecret: secret,
    });
    expect((first.body.secretPrefix as string).length).to.equal(12);

    expect((await get(ctx.server, ctx.tenant)).body).to.deep.equal({
      url: PUBLIC_URL,
      enabled: true,
      secretPrefix: secret.slice(0, 12),
    });
    const moved = await put(ctx.server, ctx.tenant, { url: 'https://93.184.215.15/other' });
    expect(moved.body).to.deep.equal({
      url: 'https://93.184.215.15/other',
      enabled: true,
      secretPrefix: secret.slice(0, 12),
    });
  });

  it('stores the secret encrypted and never logs it', async () => {
    const { body } = await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    const secret = body.newSecret as string;
    const row = await foundRow(
      testDb()('webhook_configs').where({ organization_id: ctx.tenant.organization.id }).first(),
      'configuration',
    );
    const sealed = sealedSecretOf(row);
    const stored = JSON.stringify(row) + Buffer.concat([sealed.ciphertext, sealed.iv, sealed.tag]).toString('latin1');
    expect(stored).not.to.contain(secret.slice(6));
    expect(sealed.ciphertext.length).to.equal(secret.length);
    expect(ctx.server.rawLog()).not.to.contain(secret.slice(6));
  });

  it('rotates: a new secret is returned once and the prefix follows it', async () => {
    const first = await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    const rotated = await put(ctx.server, ctx.tenant, { rotateSecret: true });
    expect(rotated.status).to.equal(200);
    expect(rotated.body.newSecret)
      .to.match(/^whsec_/)
      .and.not.equal(first.body.newSecret);
    expect(rotated.body.secretPrefix).to.equal((rotated.body.newSecret as string).slice(0, 12));
    expect((await get(ctx.server, ctx.tenant)).body.secretPrefix).to.equal(rotated.body.secretPrefix);
  });

  it('clears: disabled with no URL or prefix; rotating then is 409 no_webhook_configured; setting a URL mints anew', async () => {
    const first = await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    expect((await put(ctx.server, ctx.tenant, { clear: true })).body).to.deep.equal({
      url: null,
      enabled: false,
      secretPrefix: null,
    });
    expect((await get(ctx.server, ctx.tenant)).body).to.deep.equal({ url: null, enabled: false, secretPrefix: null });
    const rotate = await put(ctx.server, ctx.tenant, { rotateSecret: true });
    expect(rotate.status).to.equal(409);
    expect(rotate.body.title).to.equal('no_webhook_configured');
    const again = await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    expect(again.body.newSecret)
      .to.match(/^whsec_/)
      .and.not.equal(first.body.newSecret);
  });

  it('rejects bodies that are not one of the three operations with 400 invalid_request', async () => {
    for (const body of [
      {},
      { clear: true, url: PUBLIC_URL },
      { rotateSecret: false },
      { clear: false },
      { secret: 'x' },
    ]) {
      const res = await put(ctx.server, ctx.tenant, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.title).to.equal('invalid_request');
    }
  });

  const refused = [
    'http://93.184.215.14/hooks', // http
    'ftp://93.184.215.14/hooks',
    'not a url',
    '/relative/path',
    'https://user:pass@93.184.215.14/hooks',
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://10.1.2.3/hooks',
    'https://172.16.0.1/hooks',
    'https://192.168.1.1/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hooks',
    'https://0.0.0.0/hooks',
    'https://224.0.0.1/hooks',
    'https://255.255.255.255/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://[::ffff:a9fe:a9fe]/hooks', // 169.254.169.254, IPv4-mapped
    'https://[::127.0.0.1]/hooks', // IPv4-compatible
    'https://[::ffff:10.0.0.1]/hooks',
    'https://[64:ff9b::a9fe:a9fe]/hooks', // NAT64 of 169.254.169.254
    'https://[2002:7f00:1::1]/hooks', // 6to4 of 127.0.0.1
    'https://[2001::1]/hooks', // Teredo
    'https://[2001:db8::1]/hooks', // documentation
    'https://[fe80::1]/hooks',
    'https://[fc00::1]/hooks',
    'https://does-not-exist.invalid/hooks',
  ];
  for (const url of refused) {
    it(`refuses ${url} with 400 invalid_url`, async () => {
      const res = await put(ctx.server, ctx.tenant, { url });
      expect(res.status).to.equal(400);
      expect(res.body.title).to.equal('invalid_url');
      expect((await get(ctx.server, ctx.tenant)).body.enabled).to.equal(false);
    });
  }

  it('accepts http and local hosts only when the operator allow-lists them', async () => {
    const dev = await startTestServer({
      env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost', WEBHOOK_ALLOW_HTTP: 'true' },
    });
    try {
      for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks']) {
        expect((await put(dev, ctx.tenant, { url })).status, url).to.equal(200);
      }
      const stillPrivate = await put(dev, ctx.tenant, { url: 'http://10.1.2.3/hooks' });
      expect(stillPrivate.body.title).to.equal('invalid_url');
    } finally {
      await dev.close();
    }
  });

  it('refuses writes with a read-only key (403 read_only_key) but lets it read', async () => {
    const readOnly = await mintKey(ctx.tenant.organization.id, { readOnly: true });
    expect((await put(ctx.server, readOnly, { url: PUBLIC_URL })).body.title).to.equal('read_only_key');
    const test = await fetch(`${ctx.server.baseUrl}/v1/webhooks/test`, { method: 'POST', headers: readOnly.headers });
    expect(test.status).to.equal(403);
    expect((await get(ctx.server, readOnly)).status).to.equal(200);
  });

  it('needs webhooks:read to read and webhooks:write to change (403 forbidden)', async () => {
    const reader = await mintKey(ctx.tenant.organization.id, { scopes: ['webhooks:read'] });
    const other = await mintKey(ctx.tenant.organization.id, { scopes: ['debts:read'] });
    const denied = await put(ctx.server, reader, { url: PUBLIC_URL });
    expect([denied.status, denied.body.title]).to.deep.equal([403, 'forbidden']);
    expect((await get(ctx.server, reader)).status).to.equal(200);
    const hidden = await get(ctx.server, other);
    expect([hidden.status, hidden.body.title]).to.deep.equal([403, 'forbidden']);
  });

  it('POST /v1/webhooks/test is 409 no_webhook_configured without a receiver', async () => {
    const res = await fetch(`${ctx.server.baseUrl}/v1/webhooks/test`, { method: 'POST', headers: ctx.tenant.headers });
    expect(res.status).to.equal(409);
    expect(((await res.json()) as { title: string }).title).to.equal('no_webhook_configured');
  });

  it('POST /v1/webhooks/test answers 202 with the test.ping event and its Pending delivery', async () => {
    await put(ctx.server, ctx.tenant, { url: PUBLIC_URL });
    const res = await fetch(`${ctx.server.baseUrl}/v1/webhooks/test`, { method: 'POST', headers: ctx.tenant.headers });
    expect(res.status).to.equal(202);
    const { eventId, deliveryId } = (await res.json()) as { eventId: string; deliveryId: string };
    expect(eventId).to.match(/^evt_/);
    const event = await foundRow(testDb()('events').where({ id: eventId }).first(), 'event');
    expect([event.type, event.data]).to.deep.equal(['test.ping', {}]);
    const delivery = await foundRow(testDb()('webhook_deliveries').where({ id: deliveryId }).first(), 'delivery');
    expect([delivery.event_id, delivery.status, delivery.url]).to.deep.equal([eventId, 'Pending', PUBLIC_URL]);
  });
});
