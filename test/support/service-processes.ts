/**
 * The API (`api/server.ts`) and the webhooks worker (`workers/webhooks.ts`) as real processes, each in its own process
 * group so `killGroup` (processes.ts) ends all of it. Fault tests point them at their own services.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TASK_QUEUES, type TaskQueueName } from '../../core/temporal/names';
import { testEnv } from './env';
import { NO_TEMPORAL_ADDRESS, isolatedEnv, kindOfEntry } from './isolation';
import { freePort } from './ports';
import { killGroup, nodeCommand } from './processes';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  exited: Promise<void>;
  /** Everything the process wrote so far (its JSON log), for failure messages and log assertions. */
  output(): string;
}

export interface ApiProcess extends ServiceProcess {
  baseUrl: string;
}

/** A `.ts` entry runs through tsx's loader; a compiled `dist/….js` one with plain node, as production runs it. */
function spawnService(entry: string, env: Record<string, string>): ServiceProcess {
  const [command, args] = nodeCommand(entry);
  // The test's own Redis database unless the test names another (the default is the development stack's).
  const isolated = isolatedEnv({ REDIS_URL: testEnv.redisUrl, ...env }, kindOfEntry(entry));
  const child = spawn(command, args, { cwd: ROOT, env: isolated, detached: true });
  let output = '';
  const collect = (chunk: Buffer) => void (output += chunk.toString('utf8'));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, exited, output: () => output };
}

/**
 * Starts the API (`entry`: its source, or its compiled `dist/api/server.js`) and resolves once `GET /` answers (which
 * needs none of its dependencies). Its internal /metrics port is off and it has no Temporal server unless `env` sets
 * them: the defaults are the development stack's (isolation.ts).
 */
export async function startApi(env: Record<string, string>, entry = 'api/server.ts'): Promise<ApiProcess> {
  // A restart passes the port it had (env.PORT), so its clients find it again.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const proc = spawnService(entry, {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
    API_PROCESSES: '1', // one process unless the test asks for a cluster (the default is one per core)
    TEMPORAL_ADDRESS: NO_TEMPORAL_ADDRESS, // unless the test runs a Temporal server and names it
    ...env,
    PORT: String(port),
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await untilReady(proc, 'api', () =>
    fetch(`${baseUrl}/`).then(
      (res) => res.ok,
      () => false,
    ),
  );
  return { ...proc, baseUrl };
}

/** Starts the worker process of `queue` (`entry`: its source, or its compiled file) and resolves once it polls it. */
async function startWorkerProcess(
  queue: TaskQueueName,
  env: Record<string, string>,
  entry = `workers/${queue}.ts`,
): Promise<ServiceProcess> {
  const proc = spawnService(entry, { LOG_LEVEL: 'info', ...env });
  await untilReady(proc, `${queue} worker`, () => proc.output().includes(`polling task queue ${queue}`));
  return proc;
}

export const startWebhooksWorker = (env: Record<string, string>, entry?: string) =>
  startWorkerProcess(TASK_QUEUES.webhooks, env, entry);
export const startLifecycleWorker = (env: Record<string, string>, entry?: string) =>
  startWorkerProcess(TASK_QUEUES.lifecycle, env, entry);
export const startPlacementsWorker = (env: Record<string, string>, entry?: string) =>
  startWorkerProcess(TASK_QUEUES.placements, env, entry);

/** Waits for `ready`; a process that exits first or never gets ready is killed and its output reported. */
async function untilReady(proc: ServiceProcess, name: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  try {
    await waitFor(
      () => {
        if (proc.child.exitCode !== null) throw new Error(`${name} exited (${proc.child.exitCode})`);
        return ready();
      },
      { what: `the ${name} to be ready`, timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (err) {
    killGroup(proc);
    await proc.exited;
    throw new Error(`${(err as Error).message}:\n${proc.output()}`);
  }
}
