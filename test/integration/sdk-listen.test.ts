/**
 * `listen` end to end (sdk/src/listen.ts): the API as a process, events raised through it, `listen` as a process
 * forwarding them to a local receiver, signed with the secret it prints; the API restarted, then `listen` itself
 * stopped (SIGTERM, as Ctrl-C) and restarted with an event raised while it was down: every event arrives once, in
 * order, with a valid signature.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { killGroup, nodeCommand } from '../support/processes';
import { testEnv } from '../support/env';
import { startApi, type ApiProcess, type ServiceProcess } from '../support/service-processes';
import { createTestTenant, jsonHeaders, type TestTenant } from '../support/tenants';
import { inlineDebtBody } from '../support/debt-api';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';

const ROOT = path.resolve(__dirname, '..', '..');

describe('SDK: listen forwards events to a local URL, across restarts', () => {
  let api: ApiProcess | undefined;
  let listener: ServiceProcess | undefined;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;
  let dir: string;
  const apiEnv = () => ({ API_MODE: 'production', DATABASE_URL: testEnv.databaseUrl, REDIS_URL: testEnv.redisUrl });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'listen-'));
    receiver = await startWebhookReceiver('/hook');
    tenant = await createTestTenant();
    api = await startApi(apiEnv());
  });
  after(async () => {
    killGroup(listener);
    killGroup(api);
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  function startListen(): ServiceProcess {
    const [command, args] = nodeCommand('sdk/src/cli.ts');
    const listenArgs = ['listen', '--forward-to', receiver.url, '--base-url', api!.baseUrl];
    const stateArgs = ['--state-file', path.join(dir, 'listen.json'), '--interval-ms', '200'];
    const child = spawn(command, [...args, ...listenArgs, ...stateArgs], {
      cwd: ROOT,
      env: { ...process.env, CLIENT_API_KEY: tenant.key },
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    return { child, exited, output: () => output };
  }

  const secretOf = (proc: ServiceProcess) =>
    waitFor(() => /signing secret is (whsec_\S+)/.exec(proc.output())?.[1], { what: 'listen to print its secret' });

  async function raiseDebt(): Promise<string> {
    const res = await fetch(`${api!.baseUrl}/v1/debts`, {
      method: 'POST',
      headers: jsonHeaders(tenant),
      body: JSON.stringify(inlineDebtBody()),
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    return ((await res.json()) as { id: string }).id;
  }

  it('delivers each event once, signed, after an API restart and a restart of listen', async () => {
    listener = startListen();
    const secret = await secretOf(listener);
    const raised = [await raiseDebt()];
    await receiver.waitForRequests(1);

    killGroup(api);
    await api!.exited;
    await waitFor(() => listener!.output().includes('could not read events'), { what: 'a poll to find no API' });
    api = await startApi({ ...apiEnv(), PORT: new URL(api!.baseUrl).port });
    raised.push(await raiseDebt());
    await receiver.waitForRequests(2);

    listener.child.kill('SIGTERM'); // as Ctrl-C: the forward under way finishes and is recorded first
    await listener.exited;
    raised.push(await raiseDebt());
    listener = startListen();
    expect(await secretOf(listener), 'the same secret after a restart').to.equal(secret);
    await receiver.waitForRequests(3);
    // Nothing comes twice: wait for listen to read the events twice more (the API logs each read) before counting.
    const readsOfEvents = () => api!.output().split('"path":"/v1/events"').length - 1;
    const readsBefore = readsOfEvents();
    await waitFor(() => readsOfEvents() >= readsBefore + 2, { what: 'two more polls of listen' });

    expect(receiver.requests.map((r) => r.body.type)).to.deep.equal(['debt.created', 'debt.created', 'debt.created']);
    expect(receiver.requests.map((r) => (r.body.data.debt as { id: string }).id)).to.deep.equal(raised);
    expect(new Set(receiver.requests.map((r) => r.body.id)).size).to.equal(3);
    for (const request of receiver.requests) {
      expect(verifySignature(request.signature, request.rawBody, secret), request.rawBody).to.deep.include({
        ok: true,
      });
      expect(Object.keys(request.body)).to.deep.equal(['id', 'type', 'createdAt', 'data']);
    }
  });
});
