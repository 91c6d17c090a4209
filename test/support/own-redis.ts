/**
 * A `redis-server` of the test's own on a free loopback port, for fault tests that pause it (SIGSTOP: it keeps
 * accepting connections and never answers). The machine's shared Redis on 6379 must never be paused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './ports';
import { waitFor } from './wait';

export interface OwnRedis {
  url: string;
  /** SIGSTOP: the kernel still completes TCP handshakes, but no command is ever answered. */
  pause(): void;
  resume(): void;
  /** SIGKILL, and waits for the process to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess;
  let exited: Promise<void>;
  const destroy = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // works on a stopped process too
    await exited;
  };
  const start = async () => {
    child = spawn(
      process.env.REDIS_SERVER_PATH ?? 'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const proc = child;
    exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    try {
      await waitFor(() => answersPing(url), { what: `redis-server on port ${port}`, timeoutMs: 10_000 });
    } catch (err) {
      await destroy();
      throw err;
    }
  };
  await start();
  return {
    url,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    // What Redis holds (rate-limit counters, caches) is lost with it: the services must carry on without.
    kill: destroy,
    start,
    destroy,
  };
}

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
