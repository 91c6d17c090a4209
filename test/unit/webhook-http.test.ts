import { expect } from 'chai';
import { createWebhookHttp, type WebhookHttp } from '../../core/webhooks/http-sender';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createGate } from '../support/wait';

const BODY = JSON.stringify({ id: 'evt_x', type: 'test.ping', createdAt: '2026-11-22T09:00:00.000Z', data: {} });

describe('webhook HTTP sender (real sockets on 127.0.0.1)', function () {
  this.timeout(30_000);
  let receiver: WebhookReceiver;
  const clients: WebhookHttp[] = [];
  const client = (allowHosts: string[]) => {
    const http = createWebhookHttp({ allowHosts, allowHttp: true });
    clients.push(http);
    return http;
  };

  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await receiver.close();
  });

  it('refuses at send time a loopback receiver that is not allow-listed, by literal IP and by name', async () => {
    const before = receiver.requests.length;
    const guarded = client([]);
    const literal = await guarded.send(receiver.url, BODY, {});
    expect(literal).to.include({ succeeded: false, httpStatus: null });
    expect(literal.error).to.match(/^blocked:/);
    // "localhost" is resolved by the guarded lookup, i.e. on the address actually connected to.
    const named = await guarded.send(receiver.url.replace('127.0.0.1', 'localhost'), BODY, {});
    expect(named.error).to.match(/^blocked:/);
    expect(receiver.requests.length).to.equal(before);
  });

  it('refuses at send time an IPv6 literal that carries a non-public IPv4 address', async () => {
    const before = receiver.requests.length;
    const port = new URL(receiver.url).port;
    for (const host of ['[::127.0.0.1]', '[::ffff:127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]']) {
      const result = await client([]).send(`http://${host}:${port}/hooks`, BODY, {});
      expect(result.error, host).to.match(/^blocked:/);
    }
    expect(receiver.requests.length).to.equal(before);
  });

  it('refuses http when the operator does not allow it', async () => {
    const strict = createWebhookHttp({ allowHosts: ['127.0.0.1'], allowHttp: false });
    clients.push(strict);
    expect((await strict.send(receiver.url, BODY, {})).error).to.match(/^blocked: The URL must use https/);
  });

  it('posts JSON with our headers to an allow-listed receiver and keeps the first 1 KiB of the answer', async () => {
    receiver.respondWith(() => ({ status: 201, body: 'x'.repeat(5000) }));
    const result = await client(['127.0.0.1']).send(receiver.url, BODY, { 'Service-Delivery-Id': 'd-1' });
    expect(result).to.include({ succeeded: true, httpStatus: 201, error: null });
    expect(result.responseBody).to.have.length(1024);
    const last = receiver.requests[receiver.requests.length - 1]!;
    expect(last.rawBody).to.equal(BODY);
    expect(last.headers['content-type']).to.equal('application/json');
    expect(last.deliveryId).to.equal('d-1');
  });

  it('records a network error without an HTTP status', async () => {
    const result = await client(['127.0.0.1']).send('http://127.0.0.1:9/hooks', BODY, {});
    expect(result).to.include({ succeeded: false, httpStatus: null });
    expect(result.error).to.match(/^network error: ECONNREFUSED/);
  });

  it('gives up after 10 seconds without an answer', async () => {
    const answer = createGate();
    receiver.respondWith(async () => {
      await answer.opened; // not before the sender has given up
      return { status: 200 };
    });
    const result = await client(['127.0.0.1']).send(receiver.url, BODY, {});
    answer.open();
    expect(result).to.include({ succeeded: false, httpStatus: null });
    expect(result.error).to.match(/^timeout/);
    expect(result.latencyMs).to.be.within(9_900, 11_000);
  });
});
