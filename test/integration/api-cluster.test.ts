/**
 * API_PROCESSES (api/cluster.ts): the real server process with two workers answers from two different worker
 * processes, replaces a worker that is killed, serves one /metrics summed over its workers, and exits 0 on SIGTERM.
 * Which process answered is read from the request log lines, each of which carries its process's pid.
 */
import { expect } from 'chai';
import http from 'node:http';
import { freePort } from '../support/ports';
import { killGroup } from '../support/processes';
import { startApi, type ApiProcess } from '../support/service-processes';
import { testEnv } from '../support/env';
import { waitFor } from '../support/wait';

interface LogLine {
  msg: string;
  pid: number;
  workerPid?: number;
  path?: string;
}

/** A request on a connection of its own, so the primary's round-robin can hand it to any worker. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('API_PROCESSES: one API host on several processes', function () {
  this.timeout(90_000);
  let api: ApiProcess | undefined;
  let metricsPort: number;

  const logs = (): LogLine[] =>
    (api?.output() ?? '')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const workerPids = () => logs().flatMap((l) => (l.msg === 'api worker started' && l.workerPid ? [l.workerPid] : []));
  const answeringPids = (path: string) => new Set(logs().flatMap((l) => (l.path === path ? [l.pid] : [])));

  before(async () => {
    metricsPort = await freePort();
    api = await startApi({
      API_PROCESSES: '2',
      API_MODE: 'production',
      DATABASE_URL: testEnv.databaseUrl,
      REDIS_URL: testEnv.redisUrl,
      METRICS_PORT: String(metricsPort),
    });
  });
  after(() => killGroup(api));

  /** Sends requests to `path` until two different worker pids have answered it. */
  async function answeredByTwo(path: string): Promise<Set<number>> {
    return waitFor(
      async () => {
        expect(await getOnNewConnection(`${api!.baseUrl}${path}`)).to.equal(200);
        const pids = answeringPids(path);
        return pids.size >= 2 && pids;
      },
      { what: `two worker processes answering ${path}`, timeoutMs: 30_000 },
    );
  }

  it('answers from two different worker processes, none of them the primary', async () => {
    const pids = await answeredByTwo('/');
    expect(api!.child.pid).to.be.a('number');
    for (const pid of pids) expect(workerPids()).to.include(pid);
  });

  it('serves one /metrics port with the requests of every worker', async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const count = /client_api_http_request_duration_seconds_count\{[^}]*route="\/"[^}]*\} (\d+)/.exec(text);
    expect(Number(count?.[1]), text.slice(0, 2000)).to.be.at.least(2);
  });

  it('replaces a worker that is killed, and the replacement answers', async () => {
    const [victim] = workerPids();
    process.kill(victim!, 'SIGKILL');
    // The first two 'api worker started' lines are the original workers; a third is the replacement.
    const replacement = await waitFor(() => workerPids()[2], { what: 'a replacement worker', timeoutMs: 30_000 });
    expect(replacement).to.not.equal(victim);
    await waitFor(
      async () => {
        await getOnNewConnection(`${api!.baseUrl}/`).catch(() => 0);
        return answeringPids('/').has(replacement);
      },
      { what: 'the replacement worker to answer', timeoutMs: 30_000 },
    );
  });

  it('stops every worker and exits 0 on SIGTERM', async () => {
    api!.child.kill('SIGTERM');
    await api!.exited;
    expect(api!.child.exitCode, api!.output().slice(-2000)).to.equal(0);
    expect(logs().map((l) => l.msg)).to.include('api primary exiting');
  });
});
