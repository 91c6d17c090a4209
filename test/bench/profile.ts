/**
 * Where the time goes: a CPU profile (`node --cpu-prof`) of the compiled API process (dist/, as production runs it)
 * for each hot path, one process per path under 20 connections for BENCH_DURATION seconds, summarised
 * as the top frames by self time and the share of time per package. Start-up (module loading) is in the profile too
 * but small next to the load. `APP_ENV=test npx tsx test/bench/profile.ts` after `npm run bench` has seeded the bench
 * database; the raw .cpuprofile files stay in bench-results/profiles/ (Chrome DevTools or speedscope open them).
 * `console-deliveries`, `console-delivery` and `console-overview` profile the console's pages at the console bench's
 * 100,000-delivery tenant; `portal-debt` the portal's debt page.
 * `bare-organization`, `bare-debts-create`, `bare-documents`, `bare-console-…` and `bare-portal-debt` profile the
 * bare ceilings' process (bare-server.ts) on the same work.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../core/platform/db';
import { testEnv } from '../support/env';
import { sharedMailSink, stopSharedMailSink } from '../support/mail-sink';
import { creating } from './debts.bench';
import { documentUploader, uploadFor } from './documents.bench';
import { consoleTenant } from './seed-console';
import { seedPortalDebt, signInToPortal } from './seed-portal';
import { listTenant } from './seed-lists';
import {
  COMPILED_API,
  ROOT,
  benchTenant,
  buildCompiled,
  load,
  startApiProcess,
  startBenchProcess,
  type BenchTenant,
} from './support';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const duration = Number(process.env.BENCH_DURATION ?? 10);
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? 'postgres://client_api:client_api@127.0.0.1:5433/client_api_bench';
const OUT = path.join(ROOT, 'bench-results', 'profiles');
/** PROFILE_ONLY=organization,debts-list,…: profile only those hot paths (default: all). */
const only = process.env.PROFILE_ONLY ? new Set(process.env.PROFILE_ONLY.split(',')) : undefined;

function where(url: string): string {
  if (!url) return '(native / idle / gc)';
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/')) return path.relative(path.join(ROOT, 'dist'), url.replace(/^file:\/\//, ''));
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return path.relative(ROOT, url.replace(/^file:\/\//, ''));
}

/** Self time per frame and per package, in % of all samples. */
function summarise(file: string): { frames: [string, number][]; packages: [string, number][] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
  const frames = new Map<string, number>();
  const packages = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const frame = `${functionName || '(anonymous)'} ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
    frames.set(frame, (frames.get(frame) ?? 0) + time);
    packages.set(where(url), (packages.get(where(url)) ?? 0) + time);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, (100 * v) / total] as [string, number]);
  return { frames: top(frames, Number(process.env.PROFILE_FRAMES ?? 12)), packages: top(packages, 8) };
}

/**
 * Profiles `drive` against a process of its own: ours (the compiled API) or, for a name starting `bare-`, the bare
 * ceilings' process (bare-server.ts), so the two profiles of the same work can be read side by side.
 */
async function profileOne(
  name: string,
  drive: (baseUrl: string) => Promise<unknown>,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  if (only && !only.has(name)) return;
  const dir = path.join(OUT, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const processEnv = {
    API_MODE: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? testEnv.redisUrl,
    ...env,
  };
  const profiling = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const api = name.startsWith('bare-')
    ? await startBenchProcess('test/bench/bare-server.ts', processEnv, profiling)
    : await startApiProcess(processEnv, profiling, COMPILED_API);
  try {
    await drive(api.baseUrl);
  } finally {
    await api.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written for ${name}`);
  const { frames, packages } = summarise(path.join(dir, file));
  console.log(`\n### ${name}\n\n| self % | frame |\n|---|---|`);
  for (const [frame, pct] of frames) console.log(`| ${pct.toFixed(1)} | \`${frame}\` |`);
  console.log(`\nby package: ${packages.map(([p, pct]) => `${p} ${pct.toFixed(0)}%`).join(', ')}`);
}

function get(path_: string, tenant: BenchTenant) {
  return (baseUrl: string) =>
    load(path_, { url: `${baseUrl}${path_}`, headers: { authorization: tenant.authorization }, duration });
}

/** The debtor portal's debt page under a verified session (portal.bench.ts). */
async function profilePortalDebt(db: ReturnType<typeof createDb>): Promise<void> {
  if (only && !only.has('portal-debt') && !only.has('bare-portal-debt')) return;
  const visit = await seedPortalDebt(db);
  try {
    const redisUrl = process.env.BENCH_REDIS_URL ?? testEnv.redisUrl;
    const { cookie } = await signInToPortal(visit, { databaseUrl, redisUrl });
    const page = (baseUrl: string) =>
      load('GET /portal/debt', { url: `${baseUrl}/portal/debt`, headers: { cookie }, duration });
    await profileOne('portal-debt', page);
    await profileOne('bare-portal-debt', page);
  } finally {
    await db('organizations').where({ id: visit.organizationId }).delete();
  }
}

const CONSOLE_PAGES = [
  'console-deliveries',
  'console-delivery',
  'console-overview',
  'bare-console-deliveries',
  'bare-console-delivery',
  'bare-console-overview',
];

/**
 * The console's Deliveries page and a delivery's page (console.bench.ts) at the 100,000-delivery console tenant (seeded
 * by the console bench), signed in; `bare-console-…` the same pages' ceilings (bare-console.ts) with the same session.
 */
async function profileConsole(db: ReturnType<typeof createDb>): Promise<void> {
  if (only && !CONSOLE_PAGES.some((name) => only.has(name))) return;
  const redisUrl = process.env.BENCH_REDIS_URL ?? testEnv.redisUrl;
  const tenant = await consoleTenant(db, 100_000, { databaseUrl, redisUrl });
  const page = (path_: string) => (baseUrl: string) =>
    load(path_, { url: `${baseUrl}${path_}`, headers: { cookie: tenant.cookie }, duration });
  const pages: [string, string][] = [
    ['console-deliveries', '/console/deliveries'],
    ['console-delivery', `/console/deliveries/${tenant.failedDeliveryId}`],
    ['console-overview', '/console'],
    ['bare-console-deliveries', '/console/deliveries'],
    ['bare-console-delivery', `/console/delivery?id=${tenant.failedDeliveryId}`],
    ['bare-console-overview', '/console/overview'],
  ];
  for (const [name, path_] of pages) await profileOne(name, page(path_));
}

/**
 * 1 MiB PDF uploads, 4 in flight, to the local store in a scratch directory (documents.bench.ts); `bare-documents`
 * sends the same bodies raw to the bare route (bare-documents.ts).
 */
async function profileDocuments(tenant: BenchTenant): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'profile-documents-'));
  try {
    for (const name of ['documents', 'bare-documents']) {
      await profileOne(
        name,
        async (baseUrl) => {
          const uploader = documentUploader(baseUrl, tenant);
          try {
            const upload = name === 'documents' ? uploader.upload : uploader.uploadRaw(baseUrl, tenant.organizationId);
            const uploads = await uploadFor(upload, duration);
            console.log(`${name}: ${uploads} uploads in ${duration} s`);
          } finally {
            uploader.close();
          }
        },
        { DOCUMENT_DIR: dir },
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LISTS = ['debts-list', 'events-list', 'deliveries-list'];

async function main(): Promise<void> {
  buildCompiled();
  // The processes' mail goes to the tests' sink, never the development relay (test/support/isolation.ts refuses it).
  process.env.SMTP_URL ??= (await sharedMailSink()).smtpUrl;
  const db = createDb(databaseUrl, { pool: { min: 0, max: 2 }, unboundedStatements: true }); // the seeders
  try {
    const org = await benchTenant(db, 'Bench profile');
    await profilePortalDebt(db);
    await profileConsole(db);
    await profileDocuments(org);
    await profileOne('organization', get('/v1/organization', org));
    await profileOne('bare-organization', get('/organization', org));
    // The list tenants (100,000 rows each) are seeded only when a list is profiled.
    if (!only || LISTS.some((name) => only.has(name))) {
      const debts = await listTenant(db, 'debts', 100_000);
      const events = await listTenant(db, 'events', 100_000);
      await profileOne('debts-list', get('/v1/debts?limit=50', debts));
      await profileOne('events-list', get('/v1/events?limit=50', events));
      await profileOne('deliveries-list', get('/v1/webhooks/deliveries?limit=50', events));
    }
    for (const [name, route] of [
      ['debts-create', '/v1/debts'],
      ['bare-debts-create', '/debts'],
    ] as const) {
      await profileOne(name, (baseUrl) =>
        load(`POST ${route}`, {
          url: `${baseUrl}${route}`,
          duration,
          requests: creating({ authorization: org.authorization }),
        }),
      );
    }
    await db('organizations').where({ id: org.organizationId }).delete();
  } finally {
    await db.destroy();
    await stopSharedMailSink(); // its SMTP server would keep the process from ending
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
