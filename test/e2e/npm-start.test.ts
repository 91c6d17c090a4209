/**
 * README command 1, end to end: `npm start` (scripts/start.sh) brings the development stack up on its documented
 * ports, the README's "Try it" works against it as written (a sandbox sign-up, the webhook receiver set, a test event
 * and a seeded debt accepted, each delivered signed with the secret the API showed once), the Temporal Web UI finds
 * the debt's workflow, and Ctrl-C (SIGINT to its process group) stops every process it started, exiting 0.
 *
 * It uses the development stack's own ports (the suite's guard against reaching them is lifted for this file only), so
 * it runs only when nothing answers on them: a developer's running `npm start` is left alone and the test is skipped,
 * saying why. CI's clean machine always runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { NAMESPACES, workflowIds } from '../../core/temporal/names';
import type { Caller } from '../support/debt-api';
import { refuseDevStackConnections } from '../support/isolation';
import { signUp } from '../support/sandbox';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';

const PRODUCTION_API = 'http://127.0.0.1:3000';
const SANDBOX_API = 'http://127.0.0.1:3001';
const TEMPORAL_UI = 'http://127.0.0.1:8233';
const MAIL_INBOX = 'http://127.0.0.1:1080';
/** What `npm start` itself listens on: both APIs, the Temporal server and its UI, maildev's SMTP and inbox. */
const STACK_PORTS = [3000, 3001, 7233, 8233, 1025, 1080];
/** The line dev.ts prints once both APIs answer. */
const READY_LINE = /Ctrl-C stops everything/;

/** Whether something accepts a connection on the loopback port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function portsInUse(): Promise<number[]> {
  const open = await Promise.all(STACK_PORTS.map(async (port) => ((await answers(port)) ? port : undefined)));
  return open.filter((port): port is number => port !== undefined);
}

describe('npm start, then the README’s "Try it" (README command 1)', function () {
  this.timeout(420_000);
  let stack: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let output = '';
  let receiver: WebhookReceiver | undefined;
  let api: Caller;
  let webhookSecret: string;

  before(async function () {
    refuseDevStackConnections()(); // this file is about the development stack: its ports are the point
    const busy = await portsInUse();
    if (busy.length > 0) {
      console.log(`    skipped: a development stack is running here (ports ${busy.join(', ')} answer)`);
      this.skip();
    }
    receiver = await startWebhookReceiver('/debt-events');
    // A developer's shell: the PATH (whatever Node it finds, start.sh brings the project's own) and HOME, nothing of
    // the suite's configuration.
    stack = spawn('bash', ['scripts/start.sh'], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG ?? 'C.UTF-8' },
      detached: true, // its own process group, as a terminal's foreground job is
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = stack;
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => READY_LINE.test(output) || child.exitCode !== null, {
      what: 'npm start to print that the stack is up',
      timeoutMs: 300_000,
      intervalMs: 250,
    });
    expect(child.exitCode, `npm start exited before the stack was up:\n${output.slice(-4000)}`).to.equal(null);
  });

  after(async function () {
    await receiver?.close();
    if (stack && stack.exitCode === null && stack.pid) {
      process.kill(-stack.pid, 'SIGINT');
      await exited;
    }
    refuseDevStackConnections();
  });

  it('answers on the URLs it printed', async function () {
    for (const base of [PRODUCTION_API, SANDBOX_API]) {
      expect(output).to.include(base.replace('127.0.0.1', 'localhost'));
      expect((await fetch(`${base}/healthz`)).status, `${base}/healthz`).to.equal(200);
    }
    expect((await fetch(`${PRODUCTION_API}/openapi/v1.json`)).status).to.equal(200);
    expect((await fetch(`${MAIL_INBOX}/index.html`)).status).to.equal(200);
  });

  it('signs a developer up on the sandbox and delivers the test event, signed', async function () {
    const tenant = await signUp(SANDBOX_API, { organizationName: `Acme Lending ${randomUUID().slice(0, 8)}` });
    expect(tenant.key).to.match(/^ak_test_/);
    api = tenant.api;

    const webhooks = await api('PUT', '/v1/webhooks', { url: receiver!.url });
    expect(webhooks.status, JSON.stringify(webhooks.body)).to.equal(200);
    webhookSecret = webhooks.body.newSecret as string;
    expect(webhookSecret).to.be.a('string');

    expect((await api('POST', '/v1/webhooks/test')).status).to.be.oneOf([200, 202]);
    const ping = await waitFor(() => receiver!.requests.find((r) => r.body.type === 'test.ping'), {
      what: 'the test event at the receiver',
      timeoutMs: 60_000,
    });
    expect(verifySignature(ping.signature, ping.rawBody, webhookSecret)).to.deep.include({ ok: true });
  });

  it('accepts a seeded debt: its events arrive signed, and the Temporal UI finds its workflow', async function () {
    const pending = await api<{ data: { id: string }[] }>('GET', '/v1/debts?status=PendingAssignment');
    expect(pending.status).to.equal(200);
    const debtId = pending.body.data[0]!.id;

    const accepted = await api('POST', `/v1/sandbox/debts/${debtId}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).to.be.oneOf([200, 202]);
    const event = await waitFor(
      () =>
        receiver!.requests.find(
          (r) => r.body.type === 'debt.accepted' && (r.body.data.debt as { id?: string } | undefined)?.id === debtId,
        ),
      { what: 'debt.accepted at the receiver', timeoutMs: 60_000 },
    );
    expect(verifySignature(event.signature, event.rawBody, webhookSecret)).to.deep.include({ ok: true });

    const workflowId = workflowIds.debt(debtId);
    const described = await fetch(
      `${TEMPORAL_UI}/api/v1/namespaces/${NAMESPACES.sandbox}/workflows/${encodeURIComponent(workflowId)}`,
    );
    expect(described.status, `the Temporal UI's answer for ${workflowId}`).to.equal(200);
    const body = (await described.json()) as { workflowExecutionInfo?: { status?: string } };
    expect(body.workflowExecutionInfo?.status).to.equal('WORKFLOW_EXECUTION_STATUS_RUNNING');
  });

  it('keeps the Temporal dev server’s workflows in a file in write-ahead-log mode (core/temporal/dev-server-store.ts)', function () {
    // The stack runs with HOME alone (no CLIENT_API_CACHE), so scripts/dev.ts keeps it in the cache's default place.
    const dbFile = path.join(process.env.HOME!, '.cache', 'client-public-api', 'temporal-dev.db');
    // Bytes 18 and 19 of a SQLite file's header are its write and read format versions: 2 in WAL mode, 1 with the
    // rollback journal that is synced at every commit (SQLite's file format, section 1.3.4).
    const header = Buffer.alloc(100);
    const fd = openSync(dbFile, 'r');
    try {
      readSync(fd, header, 0, header.length, 0); // the header alone: a long-used file is tens of MB
    } finally {
      closeSync(fd);
    }
    expect(header.subarray(0, 16).toString('latin1')).to.equal('SQLite format 3\0');
    expect([header[18], header[19]], 'the write and read versions').to.deep.equal([2, 2]);
    expect(existsSync(`${dbFile}-wal`), 'the write-ahead log beside it while the server runs').to.equal(true);
  });

  it('stops every process it started on Ctrl-C, and exits 0', async function () {
    process.kill(-stack!.pid!, 'SIGINT');
    const code = await exited;
    expect(code, output.slice(-4000)).to.equal(0);
    await waitFor(async () => (await portsInUse()).length === 0, {
      what: `every port npm start opened (${STACK_PORTS.join(', ')}) to close`,
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });
});
