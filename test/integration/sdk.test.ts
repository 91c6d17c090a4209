/**
 * The TypeScript SDK (sdk/) against the real API: the key and base URL, an Idempotency-Key on every POST (the same on
 * a retry), retries of 429 after Retry-After, cursor iteration, typed problems, and the webhook verification.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import {
  ApiProblemError,
  baseUrlFor,
  createClient,
  list,
  retryAfterMs,
  signPayload,
  unwrap,
  verifyWebhook,
  WebhookSignatureError,
  type components,
  type operations,
  type WebhookEvent,
} from '../../sdk/src';
import { startTestServer, type TestServer } from '../support/app';
import { freePort } from '../support/ports';
import { killGroup } from '../support/processes';
import { waitFor } from '../support/wait';
import { inlineDebtBody } from '../support/debt-api';
import { createTestTenant } from '../support/tenants';

type CreateDebt = components['schemas']['Debt'];
type DebtBody = operations['createDebt']['requestBody']['content']['application/json'];

/** A valid inline-debtor body (test/support/debt-api's), as the SDK's type. */
const debtBody = () => inlineDebtBody() as DebtBody;

/** fetch that records every request it sends (method, Idempotency-Key) before sending it. */
function recordingFetch(): { fetch: typeof fetch; sent: { method: string; key: string | null; url: string }[] } {
  const sent: { method: string; key: string | null; url: string }[] = [];
  return {
    sent,
    fetch: (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, key: request.headers.get('idempotency-key'), url: request.url });
      return fetch(request);
    },
  };
}

describe('SDK: the typed TypeScript client (sdk/)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('picks the base URL from the key’s mode unless given one', () => {
    expect(baseUrlFor({ apiKey: 'ak_test_x', baseUrls: { sandbox: 'https://sandbox.example/' } })).to.equal(
      'https://sandbox.example',
    );
    expect(baseUrlFor({ apiKey: 'ak_live_x', baseUrls: { production: 'https://api.example' } })).to.equal(
      'https://api.example',
    );
    expect(baseUrlFor({ apiKey: 'ak_live_x', baseUrl: 'http://127.0.0.1:9' })).to.equal('http://127.0.0.1:9');
    expect(retryAfterMs('2', 0)).to.equal(2000);
    expect(retryAfterMs(null, 750)).to.equal(750);
  });

  it('raises and reads a debt with typed answers, an Idempotency-Key on the POST', async () => {
    const tenant = await createTestTenant();
    const recorder = recordingFetch();
    const api = createClient({ apiKey: tenant.key, baseUrl: server.baseUrl, fetch: recorder.fetch });
    const created: CreateDebt = unwrap(await api.POST('/v1/debts', { body: debtBody() }));
    expect(created.outstandingPrincipal).to.equal(1250.5);
    const read = unwrap(await api.GET('/v1/debts/{id}', { params: { path: { id: created.id } } }));
    expect(read.id).to.equal(created.id);
    const post = recorder.sent.find((r) => r.method === 'POST')!;
    expect(post.key).to.match(/^[0-9a-f-]{36}$/);
    expect(recorder.sent.find((r) => r.method === 'GET')!.key).to.equal(null);
  });

  it('throws typed problems', async () => {
    const tenant = await createTestTenant();
    const api = createClient({ apiKey: tenant.key, baseUrl: server.baseUrl });
    try {
      unwrap(await api.GET('/v1/debts/{id}', { params: { path: { id: randomUUID() } } }));
      expect.fail('expected a problem');
    } catch (error) {
      expect(error).to.be.instanceOf(ApiProblemError);
      const problem = error as ApiProblemError;
      expect(problem.status).to.equal(404);
      expect(problem.code).to.equal('not_found');
      expect(problem.problem.requestId).to.be.a('string');
    }
  });

  it('retries a 429 after its Retry-After, with the same Idempotency-Key, then gives the problem', async () => {
    const tenant = await createTestTenant({ hourlyLimit: 1 });
    const recorder = recordingFetch();
    const api = createClient({
      apiKey: tenant.key,
      baseUrl: server.baseUrl,
      fetch: recorder.fetch,
      maxRetries: 2,
      maxRetryWaitMs: 20,
    });
    unwrap(await api.GET('/v1/organization'));
    const answer = await api.POST('/v1/debtors', {
      body: { referenceId: `DBR-${randomUUID().slice(0, 8)}`, firstName: 'Ava', lastName: 'Harris' },
    });
    expect(answer.response.status).to.equal(429);
    const posts = recorder.sent.filter((r) => r.method === 'POST');
    expect(posts).to.have.length(3);
    expect(new Set(posts.map((p) => p.key)).size).to.equal(1);
    expect(() => unwrap(answer)).to.throw(ApiProblemError, 'rate_limited');
  });

  it('iterates every page of a list', async () => {
    const tenant = await createTestTenant();
    const api = createClient({ apiKey: tenant.key, baseUrl: server.baseUrl });
    const raised: string[] = [];
    for (let i = 0; i < 3; i++) {
      raised.push(unwrap(await api.POST('/v1/debts', { body: debtBody() })).id);
    }
    const seen: string[] = [];
    for await (const debt of list(api, '/v1/debts', { limit: 1 })) seen.push(debt.id);
    expect(seen.sort()).to.deep.equal(raised.sort());
  });

  it('verifies a webhook signature in constant time within 300 s, and returns the typed event', () => {
    const secret = 'whsec_test_secret';
    const raw = JSON.stringify({ id: 'evt_1', type: 'test.ping', createdAt: '2026-11-22T09:00:00.000Z', data: {} });
    const event: WebhookEvent = verifyWebhook(raw, signPayload(secret, raw), secret);
    expect(event.type).to.equal('test.ping');
    if (event.type === 'payment.received') expect.fail(`narrowed: ${event.data.payment.id}`);
    expect(() => verifyWebhook(`${raw} `, signPayload(secret, raw), secret)).to.throw(WebhookSignatureError);
    expect(() => verifyWebhook(raw, signPayload('whsec_other', raw), secret)).to.throw(WebhookSignatureError);
    const old = signPayload(secret, raw, new Date(Date.now() - 301_000));
    expect(() => verifyWebhook(raw, old, secret)).to.throw(WebhookSignatureError, 'tolerance');
    expect(() => verifyWebhook(raw, undefined, secret)).to.throw(WebhookSignatureError);
    const everyType: WebhookEvent['type'][] = ['debt.created', 'payment.received', 'test.ping'];
    expect(everyType).to.have.length(3);
  });

  it('the Python receiver example (standard library only) accepts a signed event and refuses a forged one', async () => {
    const secret = 'whsec_python_example';
    const port = await freePort();
    const script = path.resolve(__dirname, '..', '..', 'sdk', 'examples', 'webhook_receiver.py');
    const child = spawn('python3', [script], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    try {
      await waitFor(() => output.includes('listening'), { what: 'the Python receiver to listen' });
      const raw = JSON.stringify({ id: 'evt_py', type: 'test.ping', createdAt: new Date().toISOString(), data: {} });
      const post = (signature: string) =>
        fetch(`http://127.0.0.1:${port}/hook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Service-Signature': signature },
          body: raw,
        });
      expect((await post(signPayload(secret, raw))).status).to.equal(200);
      expect((await post(signPayload('whsec_forged', raw))).status).to.equal(400);
      expect((await post(signPayload(secret, raw, new Date(Date.now() - 400_000)))).status).to.equal(400);
      await waitFor(() => output.includes('test.ping evt_py'), { what: 'the receiver to print the event' });
    } finally {
      killGroup({ child });
    }
  });
});
