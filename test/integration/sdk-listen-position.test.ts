/**
 * `listen`'s position when its last event is gone: events are kept for a retention period, so a `listen` stopped
 * for longer finds its last event no longer listed. It says so and resumes from the newest event — it neither
 * replays the organisation's whole history nor stops — and forwards what comes after, once. (The restart and
 * signing behaviour is tested in sdk-listen.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createClient } from '../../sdk/src/client';
import { pollOnce, type ListenOptions, type ListenState } from '../../sdk/src/listen';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, raiseDebt, type Caller } from '../support/debt-api';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

describe('SDK: listen when its last event was purged', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let dir: string;

  before(async () => {
    server = await startTestServer();
    receiver = await startWebhookReceiver('/hook');
    dir = await mkdtemp(path.join(tmpdir(), 'listen-position-'));
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes from the newest event, says so, and forwards only what comes after', async () => {
    const tenant = await createTestTenant();
    const api: Caller = callerFor(server.baseUrl, tenant);
    const client = createClient({ apiKey: tenant.key, baseUrl: server.baseUrl, maxRetries: 0 });
    const lines: string[] = [];
    const options: ListenOptions = {
      api: client,
      forwardTo: receiver.url,
      stateFile: path.join(dir, 'state.json'),
      log: (line) => lines.push(line),
    };
    const listed = async () => {
      const { data } = await client.GET('/v1/events', { params: { query: { limit: 100 } } });
      return data?.data.map((e) => e.id) ?? [];
    };

    const first = await raiseDebt(api);
    const [lastForwarded] = await waitFor(async () => ((await listed()).length === 1 ? listed() : undefined), {
      what: 'the first debt.created to be listed',
    });
    await raiseDebt(api);
    await raiseDebt(api);
    await waitFor(async () => (await listed()).length === 3, { what: 'three events listed' });
    // Retention purges the oldest events: the one listen forwarded last is among them.
    await testDb()('events').where({ id: lastForwarded }).delete();
    const newest = (await listed())[0]!;

    const state: ListenState = { secret: 'whsec_listen_position_test', lastEventId: lastForwarded! };
    expect(await pollOnce(options, state)).to.equal(0);
    expect(state.lastEventId).to.equal(newest);
    expect(lines.join('\n')).to.contain(`the last event forwarded (${lastForwarded}) is no longer listed`);
    expect(receiver.requests).to.have.length(0);

    const later = await raiseDebt(api);
    await waitFor(async () => (await listed())[0] !== newest, { what: 'the new event to be listed' });
    expect(await pollOnce(options, state)).to.equal(1);
    const [forwarded] = await receiver.waitForRequests(1);
    expect(forwarded!.body.type).to.equal('debt.created');
    expect((forwarded!.body.data.debt as { id: string }).id).to.equal(later.id);
    expect(first.id).not.to.equal(later.id);
  });
});
