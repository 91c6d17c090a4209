/**
 * Diagnostic, not a benchmark: the system calls per request of ours and of the bare ceiling for one route, counted
 * with `strace -c -f` on each process while a fixed number of requests runs. A round trip to PostgreSQL or Redis is
 * a write and a read, so this shows whether ours talks to its dependencies more often than the same work needs.
 *   APP_ENV=test npx tsx test/bench/syscalls.ts [organization|debts|events|deliveries|portal]
 * (the lists on the bench database's events tenant of 100,000 rows, seeded by `npm run bench`)
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { createDb } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { creating } from './debts.bench';
import { barePortalPath } from './portal.bench';
import { seedPortalDebt, signInToPortal } from './seed-portal';
import { listTenant } from './seed-lists';
import { COMPILED_API, benchTenant, buildCompiled, startApiProcess, startBenchProcess } from './support';

const route = process.argv[2] ?? 'organization';
const REQUESTS = 4_000;
/** Each GET route: ours, and the bare ceiling's path doing the same work. */
const PATHS: Record<string, [string, string]> = {
  organization: ['v1/organization', 'organization'],
  events: ['v1/events?limit=50', 'events/pg'],
  deliveries: ['v1/webhooks/deliveries?limit=50', 'deliveries/pg'],
};
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? 'postgres://client_api:client_api@127.0.0.1:5433/client_api_bench';

async function traced(pid: number, drive: () => Promise<unknown>): Promise<string> {
  const strace = spawn('strace', ['-c', '-f', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let report = '';
  strace.stderr.on('data', (chunk: Buffer) => (report += chunk.toString()));
  await new Promise((resolve) => setTimeout(resolve, 500)); // strace attaches
  await drive();
  const exited = new Promise((resolve) => strace.once('exit', resolve));
  strace.kill('SIGINT');
  await exited;
  return report;
}

async function main(): Promise<void> {
  buildCompiled();
  const db = createDb(databaseUrl);
  const isList = route === 'events' || route === 'deliveries';
  const tenant = isList ? await listTenant(db, 'events', 100_000) : await benchTenant(db, 'Syscalls');
  const env = { API_MODE: 'production', DATABASE_URL: databaseUrl, REDIS_URL: testEnv.redisUrl };
  const api = await startApiProcess(env, [], COMPILED_API);
  const bare = await startBenchProcess('test/bench/bare-server.ts', env);
  const portal =
    route === 'portal'
      ? await signInToPortal(await seedPortalDebt(db), { databaseUrl, redisUrl: testEnv.redisUrl })
      : undefined;
  const run = (url: string, headers: Record<string, string>) => () =>
    portal
      ? autocannon({
          url: api.baseUrl === url ? `${url}/portal/debt` : `${url}${barePortalPath(portal, 'on')}`,
          amount: REQUESTS,
          connections: 20,
          headers: { cookie: portal.cookie },
        })
      : route === 'debts'
        ? autocannon({
            url: `${url}/${api.baseUrl === url ? 'v1/debts' : 'debts'}`,
            amount: REQUESTS,
            connections: 20,
            requests: creating(headers),
          })
        : autocannon({
            url: `${url}/${PATHS[route]![api.baseUrl === url ? 0 : 1]}`,
            amount: REQUESTS,
            connections: 20,
            headers,
          });
  try {
    const auth = { authorization: tenant.authorization };
    await run(api.baseUrl, auth)(); // warm-up
    await run(bare.baseUrl, auth)();
    console.log(`ours, ${REQUESTS} requests:\n${await traced(api.pid, run(api.baseUrl, auth))}`);
    console.log(`bare, ${REQUESTS} requests:\n${await traced(bare.pid, run(bare.baseUrl, auth))}`);
  } finally {
    await Promise.all([api.stop(), bare.stop()]);
    if (!isList) await db('organizations').where({ id: tenant.organizationId }).delete(); // the list tenant is kept
    if (portal) await db('organizations').where({ id: portal.visit.organizationId }).delete();
    await db.destroy();
  }
}

void main();
