/**
 * docker-compose.yml starts the proxy as root, only so that it can read a TLS key that is its owner's alone (0600),
 * and gives it PROXY_UID/PROXY_GID so that HAProxy drops to an unprivileged user before it serves anything
 * (ops/haproxy.cfg's `uid` and `gid`). No Docker engine runs here, so this runs what the container runs: Debian's
 * HAProxy (the image's version, docker-compose.test.ts) on the same file, started as root with a root-only key and
 * the ids of `nobody`, and checks that it answers over TLS (the key was read) from a process whose every thread has
 * left root.
 */
import { expect } from 'chai';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(__dirname, '..', '..');
const HAPROXY = '/usr/sbin/haproxy';
const NOBODY = 65534;

/** The real, effective, saved and filesystem ids of a thread, from its /proc status. */
function threadIds(statusFile: string): { uids: number[]; gids: number[] } {
  const status = fs.readFileSync(statusFile, 'utf8');
  const ids = (name: string) =>
    (new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)?.[1] ?? '').split(/\s+/).map(Number);
  return { uids: ids('Uid'), gids: ids('Gid') };
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('the proxy started as root (docker-compose.yml)', function () {
  this.timeout(30_000);
  let dir: string;
  let upstream: http.Server;
  let proxy: ChildProcess | undefined;
  let output = '';

  before(function () {
    // Dropping to another user needs root; HAProxy is installed by the bootstrap with the production profile.
    if (process.getuid?.() !== 0 || !fs.existsSync(HAPROXY)) this.skip();
  });

  afterEach(async function () {
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((resolve) => proxy!.once('exit', resolve));
      proxy.kill('SIGTERM');
      await exited;
    }
    upstream?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a root-only key, then serves as the PROXY_UID and PROXY_GID it is given, never as root', async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxy-privileges-'));
    const cert = path.join(dir, 'server.crt');
    const key = path.join(dir, 'server.key');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' }); // prettier-ignore
    fs.chmodSync(key, 0o600);
    fs.chmodSync(dir, 0o755);
    // The premise: the user the proxy drops to could not have read the key itself.
    const asNobody = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'cat', key]);
    expect(asNobody.status, 'nobody reading the key').to.not.equal(0);

    upstream = http.createServer((_req, res) => res.end('from upstream'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamAddress = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const env = {
      PATH: process.env.PATH,
      PROXY_UID: String(NOBODY),
      PROXY_GID: String(NOBODY),
      PROXY_BIND: '127.0.0.1',
      PROXY_TLS_CERT: cert,
      PUBLIC_HOST: 'localhost',
      HTTPS_PRODUCTION_PORT: String(ports[0]),
      HTTPS_SANDBOX_PORT: String(ports[1]),
      HTTPS_TEMPORAL_UI_PORT: String(ports[2]),
      HTTP_PRODUCTION_PORT: String(ports[3]),
      HTTP_SANDBOX_PORT: String(ports[4]),
      HTTP_TEMPORAL_UI_PORT: String(ports[5]),
      UPSTREAM_API_PRODUCTION: upstreamAddress,
      UPSTREAM_API_SANDBOX: upstreamAddress,
      UPSTREAM_TEMPORAL_UI: upstreamAddress,
    };
    proxy = spawn(HAPROXY, ['-db', '-f', path.join(ROOT, 'ops/haproxy.cfg')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proxy.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proxy.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ca = fs.readFileSync(cert, 'utf8');

    const answer = await waitFor(
      () => {
        if (proxy!.exitCode !== null) throw new Error(`haproxy exited (${proxy!.exitCode}): ${output}`);
        return get(`https://localhost:${ports[0]}/v1/organization`, ca).catch(() => undefined);
      },
      { what: 'the proxy to answer over TLS' },
    );
    expect(answer).to.deep.equal({ status: 200, body: 'from upstream' });

    const tasks = fs.readdirSync(`/proc/${proxy.pid}/task`);
    expect(tasks.length).to.be.greaterThan(0);
    for (const task of tasks) {
      const { uids, gids } = threadIds(`/proc/${proxy.pid}/task/${task}/status`);
      expect(uids, `thread ${task}'s uids`).to.deep.equal([NOBODY, NOBODY, NOBODY, NOBODY]);
      expect(gids, `thread ${task}'s gids`).to.deep.equal([NOBODY, NOBODY, NOBODY, NOBODY]);
    }
  });
});
