/**
 * The whole stack in the foreground (`npm start` runs the bootstrap first; `npm run dev` runs only this).
 * PostgreSQL and Redis must already answer (scripts/bootstrap.sh starts them). This starts the Temporal dev server
 * unless one answers, makes sure the namespaces and search attributes exist, then runs both APIs and the three
 * workers, each its own OS process, with prefixed output. Ctrl-C / SIGTERM stops, in order: the apps (workers
 * drain), Temporal (only if started here), then the services this run's bootstrap started. So does the end of the
 * process that started it (stop-when-orphaned.ts): `timeout npm start` stops the stack too.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { configOrExit, loadConfig, processEnv, type Mode } from '../core/platform/config';
import { loadWorkerConfig, type WorkerConfig } from '../core/platform/worker-config';
import { createDb, pingDb } from '../core/platform/db';
import { PROJECT_ROOT } from '../core/platform/project-root';
import { devServerStoreArgs } from '../core/temporal/dev-server-store';
import { fairnessDevServerArgs } from '../core/temporal/fairness';
import { SEARCH_ATTRIBUTES, TASK_QUEUES, WORKER_PROCESS_QUEUES } from '../core/temporal/names';
import { stopWhenOrphaned } from './stop-when-orphaned';

const ROOT = PROJECT_ROOT;
const CACHE = process.env.CLIENT_API_CACHE ?? path.join(os.homedir(), '.cache', 'client-public-api');
const TEMPORAL_BIN = path.join(CACHE, 'bin', 'temporal');
/** Workers give in-flight tasks up to 30 s (their shutdownForceTime); SIGKILL only after that. */
const APP_STOP_TIMEOUT_MS = 35_000;
const TEMPORAL_STOP_TIMEOUT_MS = 15_000;
/** Local webhook receivers are on loopback over http, so dev allows both; a variable set in the shell wins. */
const DEV_WEBHOOK_ENV = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost', WEBHOOK_ALLOW_HTTP: 'true' };
/** These differ per API host, so a value in the shell must not reach both: dev.ts sets them per child. */
const PER_HOST_VARS = ['API_MODE', 'PORT', 'PUBLIC_BASE_URL', 'DATABASE_URL', 'TEMPORAL_NAMESPACE'];

const execFileAsync = promisify(execFile);

interface Proc {
  name: string;
  child: ChildProcess;
  closed: Promise<void>;
}

interface ApiPlan {
  mode: Mode;
  url: string;
  env: NodeJS.ProcessEnv;
}

const apps: Proc[] = [];
let temporal: Proc | undefined;
let stopping = false;
const startedServices = readStartedServices();

const COLORS = [36, 35, 33, 32, 34, 31, 90];
const colorOf = new Map<string, number>();
function print(name: string, line: string): void {
  if (!colorOf.has(name)) colorOf.set(name, COLORS[colorOf.size % COLORS.length] ?? 0);
  const label = `[${name}]`.padEnd(18);
  process.stdout.write(
    process.stdout.isTTY ? `\x1b[${colorOf.get(name)}m${label}\x1b[0m ${line}\n` : `${label} ${line}\n`,
  );
}

/**
 * Each child gets its own process group: Ctrl-C reaches only this orchestrator, which then stops the apps before
 * Temporal (workers need it to drain). Apps run compiled, as `node dist/<file>.js`, without
 * the npm wrapper process, so SIGTERM reaches the app itself.
 */
function startProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream }).on('line', (line) => print(name, line));
  }
  child.on('error', (err) => print(name, `failed to start: ${err.message}`));
  const closed = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      if (!stopping) {
        print('dev', `${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything`);
        void shutdown(1);
      } else if (code !== 0) print('dev', `${name} stopped with ${signal ?? `code ${code}`}`);
      resolve();
    });
  });
  return { name, child, closed };
}

/** SIGTERM each process, wait for all of them, SIGKILL the process groups of those still running at the deadline. */
async function stopProcesses(procs: Proc[], timeoutMs: number): Promise<void> {
  const running = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of running) p.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = await Promise.race([Promise.all(running.map((p) => p.closed)), deadline]);
  clearTimeout(timer);
  if (outcome !== 'timeout') return;
  for (const p of running) {
    if (p.child.exitCode !== null || p.child.signalCode !== null || p.child.pid === undefined) continue;
    print('dev', `${p.name} did not stop within ${timeoutMs / 1000} s: SIGKILL`);
    process.kill(-p.child.pid, 'SIGKILL');
  }
  await Promise.all(running.map((p) => p.closed));
}

async function shutdown(exitCode: number): Promise<void> {
  if (stopping) return; // Ctrl-C may arrive several times (terminal and npm both forward it)
  stopping = true;
  print('dev', 'stopping: apps first (workers drain), then Temporal and the services this run started');
  await stopProcesses(apps, APP_STOP_TIMEOUT_MS);
  if (temporal) await stopProcesses([temporal], TEMPORAL_STOP_TIMEOUT_MS);
  stopStartedServices();
  print('dev', 'stopped');
  process.exit(exitCode);
}

/** `scripts/start.sh` has the bootstrap list in this file the services it started; only those are ours to stop. */
function readStartedServices(): string[][] {
  const file = process.env.CLIENT_API_STARTED_FILE;
  if (!file || !fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  fs.rmSync(file, { force: true });
  return lines.map((line) => line.split(' '));
}

function stopStartedServices(): void {
  const asRoot = (cmd: string[]) => (process.getuid?.() === 0 ? cmd : ['sudo', ...cmd]);
  for (const [kind, a = '', b = ''] of [...startedServices].reverse()) {
    const cmd =
      kind === 'redis' ? ['redis-cli', '-h', a, '-p', b, 'shutdown'] : asRoot(['pg_ctlcluster', a, b, 'stop']);
    print('dev', `stopping ${kind} (started by this run): ${cmd.join(' ')}`);
    const [bin = '', ...args] = cmd;
    spawnSync(bin, args, { stdio: 'inherit' });
  }
}

/** Poll without fixed sleeps beyond a short interval; once stopping, never settle (shutdown exits the process). */
async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopping) return new Promise<void>(() => undefined);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function temporalCli(args: string[]): Promise<boolean> {
  try {
    await execFileAsync(TEMPORAL_BIN, args, { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function httpAnswers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

/** Validated settings for both hosts: per-mode database and namespace come from the worker variables. */
function plan(): { base: NodeJS.ProcessEnv; workers: WorkerConfig; apis: ApiPlan[]; uiUrl: string; address: string } {
  // The orchestrator runs a developer's stack: the public development webhook key is allowed unless one is set.
  const base = processEnv({ APP_ENV: process.env.APP_ENV ?? 'development' });
  for (const name of PER_HOST_VARS) delete base[name];
  const workers = configOrExit(() => loadWorkerConfig({ ...base, WORKER_MODES: 'production,sandbox' }));
  const apis = workers.modes.map(({ mode, databaseUrl, namespace }) => {
    const env = {
      ...DEV_WEBHOOK_ENV,
      ...base,
      API_MODE: mode,
      DATABASE_URL: databaseUrl,
      TEMPORAL_NAMESPACE: namespace,
    };
    const config = configOrExit(() => loadConfig(env));
    const url = mode === 'production' ? config.productionBaseUrl : config.sandboxBaseUrl;
    return { mode, url, env: { ...env, PORT: String(config.port), PUBLIC_BASE_URL: url } };
  });
  const config = configOrExit(() => loadConfig(apis[0]?.env));
  return { base, workers, apis, uiUrl: config.temporalUiUrl, address: config.temporal.address };
}

async function checkServices(workers: WorkerConfig): Promise<void> {
  const hint = 'run `npm start` (it runs scripts/bootstrap.sh first) or `npm run bootstrap`';
  for (const { databaseUrl } of workers.modes) {
    const db = createDb(databaseUrl, { pool: { min: 0, max: 1 } });
    const name = new URL(databaseUrl).pathname.slice(1);
    try {
      await pingDb(db);
    } catch (err) {
      throw new Error(`PostgreSQL database ${name} does not answer (${(err as Error).message}); ${hint}`);
    } finally {
      await db.destroy();
    }
  }
  const redis = new Redis(workers.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined); // reported below
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis does not answer (${(err as Error).message}); ${hint}`);
  } finally {
    redis.disconnect();
  }
  print('dev', 'PostgreSQL and Redis answer');
}

async function ensureTemporal(address: string, uiUrl: string, namespaces: string[]): Promise<void> {
  const at = ['--address', address];
  if (await temporalCli(['operator', 'cluster', 'health', ...at])) {
    print('dev', `Temporal already answers on ${address}: using it (and leaving it running on exit)`);
  } else {
    const [ip = '127.0.0.1', port = '7233'] = address.split(':');
    const args = ['server', 'start-dev', '--ip', ip, '--port', port, '--ui-port', new URL(uiUrl).port || '8233'];
    args.push(...devServerStoreArgs(path.join(CACHE, 'temporal-dev.db'))); // core/temporal/dev-server-store.ts: why
    for (const ns of namespaces) args.push('--namespace', ns);
    for (const sa of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${sa}=Keyword`);
    args.push(...fairnessDevServerArgs()); // tenants share the task queues fairly (core/temporal/fairness.ts)
    temporal = startProcess('temporal', TEMPORAL_BIN, args, processEnv());
    await waitFor('Temporal dev server', 60_000, () => temporalCli(['operator', 'cluster', 'health', ...at]));
  }
  // start-dev creates namespaces but registers search attributes only on namespaces it creates, so an existing
  // db file (or a server we did not start) needs both done here; `search-attribute create` is idempotent.
  for (const ns of namespaces) {
    if (!(await temporalCli(['operator', 'namespace', 'describe', '-n', ns, ...at]))) {
      print('dev', `creating namespace ${ns}`);
      await temporalCli(['operator', 'namespace', 'create', '-n', ns, ...at]);
    }
    // One attribute a call: given several names at once, the CLI and server register only some of them.
    for (const sa of SEARCH_ATTRIBUTES) {
      const create = ['operator', 'search-attribute', 'create', '--namespace', ns, '--name', sa, '--type', 'Keyword'];
      await waitFor(`search attribute ${sa} on ${ns}`, 30_000, () => temporalCli([...create, ...at]));
    }
  }
  if (temporal) await waitFor('Temporal Web UI', 30_000, () => httpAnswers(uiUrl));
  print('dev', `Temporal ready on ${address}: namespaces ${namespaces.join(', ')}`);
}

async function main(): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  stopWhenOrphaned((parent) => {
    print('dev', `the process that started the stack (pid ${parent}) is gone: stopping`);
    void shutdown(0);
  });
  const { base, workers, apis, uiUrl, address } = plan();
  await checkServices(workers);
  await ensureTemporal(
    address,
    uiUrl,
    workers.modes.map((m) => m.namespace),
  );
  // scripts/compiled.sh built dist/ before this started: every app runs as production runs it, compiled.
  const compiled = (entry: string) => [path.join(ROOT, 'dist', `${entry}.js`)];
  const mailInbox = startMailSink(base);
  for (const api of apis) apps.push(startProcess(`api-${api.mode}`, process.execPath, compiled('api/server'), api.env));
  for (const queue of WORKER_PROCESS_QUEUES) {
    const env = queue === TASK_QUEUES.webhooks ? { ...DEV_WEBHOOK_ENV, ...base } : base;
    apps.push(startProcess(`worker-${queue}`, process.execPath, compiled(`workers/${queue}`), env));
  }
  await Promise.all(apis.map((api) => waitFor(`API ${api.url}`, 90_000, () => httpAnswers(`${api.url}/healthz`))));
  const lines = [
    ...apis.map(
      (api) =>
        `${api.mode.padEnd(10)} API  ${api.url}  (docs ${api.url}/docs/, ${api.url}/reference, ${api.url}/swagger)`,
    ),
    `Temporal Web UI  ${uiUrl}`,
    mailInbox ? `Mail inbox (maildev) ${mailInbox}  (console sign-in links arrive here)` : 'Mail goes to SMTP_URL',
    `Workers: ${WORKER_PROCESS_QUEUES.join(', ')} (each logs when it polls its task queue). Ctrl-C stops everything.`,
  ];
  for (const line of lines) print('dev', line);
}

/** Mail sink port of the web inbox: loopback only, next to the default SMTP port 1025. */
const MAILDEV_WEB_PORT = 1080;

/**
 * maildev 3 (a dev dependency) on loopback, unless SMTP_URL points at a relay other than the default sink: the
 * console's sign-in links land in its web inbox, whose URL this returns.
 */
function startMailSink(base: NodeJS.ProcessEnv): string | undefined {
  const smtp = new URL(base.SMTP_URL ?? 'smtp://127.0.0.1:1025');
  if (!['127.0.0.1', 'localhost'].includes(smtp.hostname) || smtp.port !== '1025') return undefined;
  const bin = path.join(ROOT, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');
  const args = [bin, '--smtp', '1025', '--web', String(MAILDEV_WEB_PORT), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1'];
  apps.push(startProcess('maildev', process.execPath, args, base));
  return `http://127.0.0.1:${MAILDEV_WEB_PORT}/index.html`;
}

main().catch((err: unknown) => {
  print('dev', `start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  void shutdown(1);
});
