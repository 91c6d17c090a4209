/**
 * A Temporal dev server the test can stop and start again on the same port with the same state (`--db-filename`),
 * for fault tests: `startDevServer` (temporal.ts) keeps its state in memory and cannot be restarted in place.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../core/temporal/names';
import { fairnessDevServerArgs } from '../../core/temporal/fairness';
import { freePort } from './ports';
import { DEV_SERVER_NAMESPACES, temporalCliPath } from './temporal';
import { waitFor } from './wait';

export interface OwnTemporal {
  /** `127.0.0.1:<port>`, the same across restarts. */
  address: string;
  /** Waits until the server and its namespaces answer. */
  start(): Promise<void>;
  /** The running server's process id (its memory is measured by the soak). */
  pid(): number | undefined;
  /** SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), and waits for the process to exit; `start` again finds its state in the same file. */
  kill(): Promise<void>;
  destroy(): Promise<void>;
}

export async function createOwnTemporal(): Promise<OwnTemporal> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'own-temporal-'));
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = [
    ...['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)],
    ...['--db-filename', path.join(dir, 'temporal.db'), '--log-level', 'error'],
    ...DEV_SERVER_NAMESPACES.flatMap((namespace) => ['--namespace', namespace]),
    ...SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...fairnessDevServerArgs(),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const stopWith = async (signal: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const stop = () => stopWith('SIGTERM');
  return {
    address,
    async start() {
      const proc = spawn(temporalCliPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      proc.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
      child = proc;
      exited = new Promise((resolve) => proc.once('exit', () => resolve()));
      await waitFor(
        async () => {
          if (proc.exitCode !== null) throw new Error(`temporal dev server exited (${proc.exitCode}):\n${stderr}`);
          return namespacesAnswer(address);
        },
        { what: `temporal dev server on ${address}`, timeoutMs: 30_000, intervalMs: 200 },
      );
    },
    pid: () => child?.pid,
    stop,
    kill: () => stopWith('SIGKILL'),
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function namespacesAnswer(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    for (const namespace of DEV_SERVER_NAMESPACES) {
      await connection.workflowService.describeNamespace({ namespace });
    }
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}
