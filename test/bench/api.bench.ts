/**
 * The API contract's cost: authenticated, rate-limited `GET /v1/organization` against the same work in the bare
 * process, written from the libraries alone (bare-api-routes.ts: key hash, in-memory key, the same Lua script,
 * headers, a pino line; target ≥ 0.85×, docs/operators/performance.md) and, for scale, against a trivial Koa route
 * (the retired 0.7× target), then one API process against all of them (API_PROCESSES = the number of cores) on the
 * same route: what node:cluster buys on this machine, with the load generator on the same cores.
 */
import os from 'node:os';
import { compare, figure, recordMemory } from './report';
import type { BenchContext } from './context';
import { sharedProcesses, type ProcessSet } from './cpu';
import { COMPILED_API, benchTenant, childPids, interleaved, load, peakMemoryMiB, startApiProcess } from './support';

export async function benchApiContract(ctx: BenchContext): Promise<void> {
  const { api, bare, db, duration, warmUp } = ctx;
  const { authorization } = await benchTenant(db, 'Bench Org');
  const ourCpu = { api: () => [api.pid], ...sharedProcesses() };
  const organization = (url: string, label: string, seconds = duration, cpu?: ProcessSet) =>
    load(label, { url: `${url}/v1/organization`, headers: { authorization }, duration: seconds, cpu });

  console.log('\nGET /v1/organization');
  await organization(api.baseUrl, 'warm-up', warmUp); // JIT, pools, key cache
  await load('warm-up', { url: `${bare.baseUrl}/`, duration: warmUp });
  await load('warm-up', { url: `${bare.baseUrl}/organization`, headers: { authorization }, duration: warmUp });
  const bareCpu = { bare: () => [bare.pid], ...sharedProcesses() };
  const { trivial, sameWork, single } = await interleaved(
    {
      trivial: (seconds) =>
        load('bare: trivial Koa route GET /', {
          url: `${bare.baseUrl}/`,
          duration: seconds,
          cpu: bareCpu,
        }),
      sameWork: (seconds) =>
        load('bare: the same work from the libraries alone (key hash, Lua script, headers, pino line)', {
          url: `${bare.baseUrl}/organization`,
          headers: { authorization },
          duration: seconds,
          cpu: bareCpu,
        }),
      single: (seconds) => organization(api.baseUrl, 'ours, 1 process (key auth + rate limit)', seconds, ourCpu),
    },
    duration,
  );
  compare(ctx.report, 'GET /v1/organization vs the same work', figure(single), figure(sameWork), 0.85);
  compare(ctx.report, 'GET /v1/organization vs a trivial Koa route (no target)', figure(single), figure(trivial));

  const processes = os.availableParallelism();
  const all = await startApiProcess(
    {
      API_MODE: 'production',
      DATABASE_URL: ctx.databaseUrl,
      REDIS_URL: ctx.redisUrl,
      API_PROCESSES: String(processes),
    },
    [],
    COMPILED_API,
  );
  try {
    // Every worker warms up on its own (JIT, pool, key cache) and each gets only part of the warm-up's requests.
    await organization(all.baseUrl, 'warm-up', duration);
    const clustered = await organization(all.baseUrl, `ours, ${processes} processes (API_PROCESSES=${processes})`);
    compare(ctx.report, 'GET /v1/organization, all cores vs one process', figure(clustered), figure(single));
    recordMemory(ctx.report, `api cluster primary (${processes} workers)`, all.pid, peakMemoryMiB(all.pid));
    for (const pid of childPids('', all.pid)) recordMemory(ctx.report, 'api cluster worker', pid, peakMemoryMiB(pid));
  } finally {
    await all.stop();
  }
}
