/**
 * The soak's stack, all of it its own: PostgreSQL, Redis and a Temporal dev server (on a file) started for the run,
 * a mail sink, a webhook receiver that is slow one time in ten, and our processes compiled and started as production
 * runs them — the production API, the sandbox API, the webhooks worker and the lifecycle worker (both modes each).
 * Then the tenants the load uses: three production organisations with keys and receivers, one sandbox organisation,
 * a debtor signed in to the portal and a console admin signed in to a tenant with 1,000 deliveries.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { consoleTenant, type ConsoleTenant } from '../bench/seed-console';
import { seedPortalDebt, signInToPortal, type PortalDebt } from '../bench/seed-portal';
import { buildCompiled } from '../bench/support';
import type { Db } from '../../core/platform/db';
import type { Mode } from '../../core/platform/mode';
import { createTenantIn } from '../support/fault-fixtures';
import { startMailSink } from '../support/mail-sink';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { createOwnTemporal } from '../support/own-temporal';
import { killGroup } from '../support/processes';
import {
  startApi,
  startLifecycleWorker,
  startPlacementsWorker,
  startWebhooksWorker,
  type ServiceProcess,
} from '../support/service-processes';
import type { TestTenant } from '../support/tenants';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { localWebhookConfig, localWebhookEnv } from '../support/webhooks';

/** One delivery in this many meets a receiver that takes SLOW_REPLY_MS to answer (well inside the 10 s timeout). */
export const SLOW_EVERY = 10;
export const SLOW_REPLY_MS = 2_000;
export const PRODUCTION_TENANTS = 3;
/** The soak's keys are limited far above its rate: a 429 answers in microseconds and would flatter every figure. */
export const SOAK_KEY_LIMITS = { hourlyLimit: 100_000_000, dailyLimit: 900_000_000 };

export interface SoakTenants {
  production: TestTenant[];
  sandbox: TestTenant;
  portal: PortalDebt;
  console: ConsoleTenant;
}

export interface SoakStack {
  /** Which stack: `dev` (this file's) or `profile` (the production profile, soak-profile-stack.ts). */
  name: 'dev' | 'profile';
  productionApi: { baseUrl: string };
  sandboxApi: { baseUrl: string };
  /** Each mode's database; the dev stack's two are one. */
  dbs: Record<Mode, Db>;
  temporalAddress: string;
  /** fetch as the stack's clients reach it (the profile's trusts its local CA). */
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  tenants: SoakTenants;
  /** The processes whose memory the soak follows, by name (read each time: a pid is fixed for the run). */
  processes(): Record<string, number | undefined>;
  stop(): Promise<void>;
}

export async function startSoakStack(log: (line: string) => void): Promise<SoakStack> {
  log('building dist/ (the processes run compiled, as production runs them)');
  buildCompiled();
  const webhooks = localWebhookConfig();
  log('starting PostgreSQL, Redis, the Temporal dev server, the mail sink and the receiver');
  const [pg, redis, temporal, receiver, mail] = await Promise.all([
    startOwnPostgres({ durableCommits: true }),
    startOwnRedis(),
    createOwnTemporal(),
    startWebhookReceiver(),
    startMailSink(),
  ]);
  let slowTurn = 0;
  receiver.respondWith(async () => {
    if (++slowTurn % SLOW_EVERY === 0) await pause(SLOW_REPLY_MS);
    return { status: 200, body: 'ok' };
  });
  await temporal.start();
  const shared = {
    TEMPORAL_ADDRESS: temporal.address,
    REDIS_URL: redis.url,
    SMTP_URL: mail.smtpUrl,
    ...localWebhookEnv(webhooks),
  };
  const started: ServiceProcess[] = [];
  try {
    log('starting the production API, the sandbox API and the webhooks, lifecycle and placements workers (compiled)');
    const [productionApi, sandboxApi, webhooksWorker, lifecycleWorker, placementsWorker] = await Promise.all([
      startApi({ ...shared, API_MODE: 'production', DATABASE_URL: pg.databaseUrl }, 'dist/api/server.js'),
      startApi({ ...shared, API_MODE: 'sandbox', DATABASE_URL: pg.databaseUrl }, 'dist/api/server.js'),
      startWebhooksWorker(workerEnv(shared, pg), 'dist/workers/webhooks.js'),
      startLifecycleWorker(workerEnv(shared, pg), 'dist/workers/lifecycle.js'),
      startPlacementsWorker(workerEnv(shared, pg), 'dist/workers/placements.js'),
    ]);
    started.push(productionApi, sandboxApi, webhooksWorker, lifecycleWorker, placementsWorker);
    const tenants = await seedTenants(pg, redis, webhooks, receiver.url);
    return {
      name: 'dev',
      productionApi,
      sandboxApi,
      dbs: { production: pg.db, sandbox: pg.db },
      temporalAddress: temporal.address,
      fetch: (url, init) => fetch(url, init),
      tenants,
      processes: () => ({
        'production API': productionApi.child.pid,
        'sandbox API': sandboxApi.child.pid,
        'webhooks worker': webhooksWorker.child.pid,
        'lifecycle worker': lifecycleWorker.child.pid,
        'placements worker': placementsWorker.child.pid,
        'Temporal dev server': temporal.pid(),
      }),
      async stop() {
        started.forEach(killGroup);
        await Promise.all(started.map((p) => p.exited));
        await Promise.allSettled([pg.destroy(), redis.destroy(), temporal.destroy(), receiver.close(), mail.stop()]);
      },
    };
  } catch (err) {
    started.forEach(killGroup);
    await Promise.allSettled([pg.destroy(), redis.destroy(), temporal.destroy(), receiver.close(), mail.stop()]);
    throw err;
  }
}

function workerEnv(shared: Record<string, string>, pg: OwnPostgres): Record<string, string> {
  return {
    ...shared,
    WORKER_MODES: 'production,sandbox',
    PRODUCTION_DATABASE_URL: pg.databaseUrl,
    SANDBOX_DATABASE_URL: pg.databaseUrl,
  };
}

async function seedTenants(
  pg: OwnPostgres,
  redis: OwnRedis,
  webhooks: ReturnType<typeof localWebhookConfig>,
  receiverUrl: string,
): Promise<SoakTenants> {
  const receiver = { webhooks, url: receiverUrl };
  const production: TestTenant[] = [];
  for (let i = 0; i < PRODUCTION_TENANTS; i++)
    production.push(await createTenantIn(pg.db, receiver, 'production', SOAK_KEY_LIMITS));
  const sandbox = await createTenantIn(pg.db, receiver, 'sandbox', SOAK_KEY_LIMITS);
  const env = { databaseUrl: pg.databaseUrl, redisUrl: redis.url };
  const portal = await signInToPortal(await seedPortalDebt(pg.db), env);
  return { production, sandbox, portal, console: await consoleTenant(pg.db, 1_000, env) };
}

/** Resident memory now (VmRSS), in MiB; undefined once the process is gone. */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return undefined;
  }
}
