/**
 * Benchmark plumbing: run the real API as its own OS process, drive it with autocannon, and read each process's
 * peak memory (VmHWM) so the report can show it. Nothing here asserts timings: benchmarks print, tests assert.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { mintApiKey } from '../../core/access/api-keys';
import type { Db } from '../../core/platform/db';
import { createOrganization } from '../../core/access/organizations';
import { SCOPES } from '../../core/access/scopes';
import { testEnv } from '../support/env';
import { NO_TEMPORAL_ADDRESS, isolatedEnv, kindOfEntry } from '../support/isolation';
import { nodeCommand } from '../support/processes';
import { waitFor } from '../support/wait';
import { cpuPerItem, type ProcessSet } from './cpu';

export const ROOT = path.resolve(__dirname, '..', '..');

/** The API's entry point as production runs it: compiled, no TypeScript loader (`buildCompiled` writes it). */
export const COMPILED_API = 'dist/api/server.js';

/** `npm run build`: tsc's incremental build into dist/, a few seconds when little changed. */
export function buildCompiled(): void {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT });
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** µs of CPU per request, by process (cpu.ts), when the load was given processes to account for. */
  cpuUsPerRequest?: Record<string, number>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * Starts `api/server.ts` in its own node process (one process unless `env` sets API_PROCESSES) and waits until it
 * answers. Its internal metrics port is off: a fixed default would collide with another API on the machine.
 */
export async function startApiProcess(
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
  entry = 'api/server.ts',
): Promise<ApiProcess> {
  return startBenchProcess(entry, { API_PROCESSES: '1', METRICS_PORT: '0', ...env }, nodeArgs);
}

/** Starts a TypeScript entry point (the API, the bare ceilings' server) on a free port; resolves once `/` answers. */
export async function startBenchProcess(
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<ApiProcess> {
  const port = await freePort();
  const [command, args] = nodeCommand(entry, nodeArgs);
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    // Logging as production's default does (`info`: the API writes a line per request, 15–30 µs of its CPU each);
    // the lines go to /dev/null, where production's go to a pipe and a log shipper.
    env: isolatedEnv(
      // The test's own Redis database, no Temporal server and no metrics port unless the scenario names others (the
      // defaults are the development stack's).
      {
        TEMPORAL_ADDRESS: NO_TEMPORAL_ADDRESS,
        METRICS_PORT: '0',
        REDIS_URL: testEnv.redisUrl,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: env.LOG_LEVEL ?? 'info',
      },
      kindOfEntry(entry),
    ),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode} before answering`);
      return fetch(`${baseUrl}/`).then(
        (res) => res.ok,
        () => false, // not listening yet
      );
    },
    { what: `${entry} to answer`, timeoutMs: 60_000, intervalMs: 100 },
  );
  return {
    baseUrl,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function load(
  name: string,
  options: {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    requests?: autocannon.Request[];
    /** Processes whose CPU per request to report (cpu.ts). */
    cpu?: ProcessSet;
  },
): Promise<LoadResult> {
  const run = () =>
    autocannon({
      url: options.url,
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
      connections: options.connections ?? 20,
      duration: options.duration ?? 10,
      requests: options.requests,
    });
  const { result, perItemUs } = await cpuPerItem(options.cpu ?? {}, run, (r) => r.requests.total);
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ...(options.cpu && { cpuUsPerRequest: perItemUs }),
  };
}

/**
 * Runs the loads in turn, `slices` rounds of `duration / slices` seconds each, and combines each load's slices (their
 * means). A small VM's speed drifts within a run (a checkpoint, a neighbour): measured back to back,
 * a whole load lands on one side of a drift and the ratio moves with it; interleaved, every side gets its share.
 */
export async function interleaved<Name extends string>(
  loads: Record<Name, (seconds: number) => Promise<LoadResult>>,
  duration: number,
  slices = 3,
  /** Each slice in the other order from the last (A B, B A, …): neither load always follows the other. */
  alternate = false,
): Promise<Record<Name, LoadResult>> {
  const names = Object.keys(loads) as Name[];
  const results = new Map<Name, LoadResult[]>(names.map((name) => [name, []]));
  for (let i = 0; i < slices; i++) {
    const order = alternate && i % 2 === 1 ? [...names].reverse() : names;
    for (const name of order) results.get(name)!.push(await loads[name](duration / slices));
  }
  return Object.fromEntries(names.map((name) => [name, combine(results.get(name)!)])) as Record<Name, LoadResult>;
}

/**
 * One figure from a load's slices: the mean of each (rate, p50, p99, CPU per request). Not the worst p99: one slice
 * that met a checkpoint would then decide the p99 check for whichever route it landed on.
 */
function combine(slices: LoadResult[]): LoadResult {
  const meanOf = (f: (r: LoadResult) => number) => mean(slices.map(f));
  const cpu = slices.map((r) => r.cpuUsPerRequest).filter((c): c is Record<string, number> => c !== undefined);
  return {
    name: slices[0]!.name,
    requestsPerSecond: meanOf((r) => r.requestsPerSecond),
    p50: meanOf((r) => r.p50),
    p99: meanOf((r) => r.p99),
    non2xx: slices.reduce((sum, r) => sum + r.non2xx, 0),
    errors: slices.reduce((sum, r) => sum + r.errors, 0),
    ...(cpu.length > 0 && { cpuUsPerRequest: meanByProcess(cpu) }),
  };
}

/** The `p`th percentile of `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Per process, the mean of several measurements of CPU per item (one per slice). */
export function meanByProcess(measured: Record<string, number>[]): Record<string, number> {
  return Object.fromEntries(Object.keys(measured[0] ?? {}).map((name) => [name, mean(measured.map((m) => m[name]!))]));
}

/** The ids of the processes whose parent and process group (from `/proc/<pid>/stat`) pass `test`. */
export function pidsWhere(test: (pid: number, stat: { parent: number; group: number }) => boolean): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [, parent, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return test(pid, { parent: Number(parent), group: Number(group) });
      } catch {
        return false; // exited meanwhile
      }
    });
}

/** A process and its direct children: a node:cluster primary and its workers (an API host of the profile). */
export function processAndChildren(pid: number): number[] {
  return [pid, ...pidsWhere((_, stat) => stat.parent === pid)];
}

/** Ids of this process's direct children whose command line contains `fragment` (e.g. the Temporal dev server). */
export function childPids(fragment: string, parent = process.pid): number[] {
  return pidsWhere(
    (pid, stat) => stat.parent === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(fragment),
  );
}

/** Peak resident set size of a process, in MiB, from /proc (Linux). */
export function peakMemoryMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

export interface BenchTenant {
  organizationId: string;
  authorization: string;
}

/** A production organisation with an all-scopes key whose rate limits the benchmark cannot reach. */
export async function benchTenant(db: Db, name: string): Promise<BenchTenant> {
  const organization = await createOrganization(db, { name, mode: 'production' });
  return benchKey(db, organization.id);
}

/** A fresh all-scopes key of `organizationId` whose rate limits the benchmark cannot reach. */
export async function benchKey(db: Db, organizationId: string): Promise<BenchTenant> {
  const { secret } = await mintApiKey(db, {
    organizationId,
    mode: 'production',
    name: 'bench',
    scopes: [...SCOPES],
    readOnly: false,
    hourlyLimit: 100_000_000,
    dailyLimit: 100_000_000,
  });
  return { organizationId, authorization: `Bearer ${secret}` };
}
