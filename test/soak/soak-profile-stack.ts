/**
 * The soak's stack on the production profile (`npm run soak -- --profile`): an instance of `npm run stage` of the
 * soak's own (`stagesoak`, ports from 18800: HAProxy terminating TLS, the real Temporal server on PostgreSQL, two API
 * processes per host under supervisor, APP_ENV=production, maildev as the relay), reached through its proxy as
 * clients reach it. The tenants are seeded straight into its two databases (an organisation and a key are rows; the
 * webhook URL goes through the API, which seals its signing secret with the profile's own key), the debtor's portal
 * session and the admin's console session into its Redis, as the dev soak seeds its own; the receiver answers over
 * https with a certificate of the profile's CA, slow one time in ten.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { createDb, type Db } from '../../core/platform/db';
import type { Mode } from '../../core/platform/mode';
import { consoleTenant } from '../bench/seed-console';
import { seedPortalDebt, signInToPortal } from '../bench/seed-portal';
import { processAndChildren } from '../bench/support';
import { createTenantIn } from '../support/fault-fixtures';
import {
  destroyProductionProfile,
  profileDatabaseUrl,
  profileSecret,
  setProfileWebhookUrl,
  startProductionProfile,
  stopProductionProfile,
  type ProductionProfile,
} from '../support/production-profile';
import type { TestTenant } from '../support/tenants';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { PRODUCTION_TENANTS, SLOW_EVERY, SLOW_REPLY_MS, SOAK_KEY_LIMITS, type SoakStack } from './soak-stack';

const SOAK_PROFILE = {
  STAGE_NAME: 'stagesoak',
  STAGE_PORT_BASE: '18800',
  STAGE_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', // the soak's receiver
  STAGE_SKIP_BOOTSTRAP: '1', // scripts/soak.sh bootstrapped it
};

/** The API's key is a row; the webhook URL is set through the API, as a client sets it. */
async function profileTenant(profile: ProductionProfile, db: Db, mode: Mode, receiverUrl: string): Promise<TestTenant> {
  const tenant = await createTenantIn(db, undefined, mode, SOAK_KEY_LIMITS);
  const baseUrl = mode === 'production' ? profile.env.PRODUCTION_BASE_URL : profile.env.SANDBOX_BASE_URL;
  await setProfileWebhookUrl(profile, baseUrl!, tenant.headers.authorization!, receiverUrl);
  return tenant;
}

export async function startProfileSoakStack(log: (line: string) => void): Promise<SoakStack> {
  log('starting the soak’s own production profile (scripts/stage.sh, STAGE_NAME=stagesoak)');
  await destroyProductionProfile(SOAK_PROFILE); // a fresh instance: no earlier run's work beside this one's
  const profile = await startProductionProfile(SOAK_PROFILE);
  const receiver = await startWebhookReceiver('/hooks', { tls: profile.serverTls });
  let slowTurn = 0;
  receiver.respondWith(async () => {
    if (++slowTurn % SLOW_EVERY === 0) await pause(SLOW_REPLY_MS);
    return { status: 200, body: 'ok' };
  });
  const productionUrl = await profileDatabaseUrl(profile, 'production');
  const dbs: Record<Mode, Db> = {
    production: createDb(productionUrl, { pool: { min: 0, max: 4 } }),
    sandbox: createDb(await profileDatabaseUrl(profile, 'sandbox'), { pool: { min: 0, max: 4 } }),
  };
  const stop = async () => {
    await receiver.close();
    await Promise.allSettled(Object.values(dbs).map((db) => db.destroy()));
    log('stopping the soak’s profile');
    await stopProductionProfile(SOAK_PROFILE);
  };
  try {
    log('seeding the tenants, the portal session and the console session into the profile');
    const production: TestTenant[] = [];
    for (let i = 0; i < PRODUCTION_TENANTS; i++)
      production.push(await profileTenant(profile, dbs.production, 'production', receiver.url));
    const sandbox = await profileTenant(profile, dbs.sandbox, 'sandbox', receiver.url);
    const redisPassword = encodeURIComponent(await profileSecret(profile, 'redis-password'));
    const redisUrl = `redis://:${redisPassword}@127.0.0.1:${profile.env.REDIS_PORT}`;
    const env = { databaseUrl: productionUrl, redisUrl, secureCookies: true };
    const portal = await signInToPortal(await seedPortalDebt(dbs.production), env);
    const consoleSession = await consoleTenant(dbs.production, 1_000, env);
    const pids = await profilePids(profile);
    return {
      name: 'profile',
      productionApi: { baseUrl: profile.env.PRODUCTION_BASE_URL! },
      sandboxApi: { baseUrl: profile.env.SANDBOX_BASE_URL! },
      dbs,
      temporalAddress: profile.env.TEMPORAL_ADDRESS!,
      fetch: (url, init) => profile.fetch(url, init as never) as unknown as Promise<Response>,
      tenants: { production, sandbox, portal, console: consoleSession },
      processes: () => pids,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The profile's processes by name, fixed for the run: each API host's processes, the workers, Temporal, HAProxy. */
async function profilePids(profile: ProductionProfile): Promise<Record<string, number | undefined>> {
  const pids: Record<string, number | undefined> = {};
  for (const [name, program] of [
    ['production API', 'apps:api-production'],
    ['sandbox API', 'apps:api-sandbox'],
  ] as const) {
    const [primary, ...workers] = processAndChildren(await profile.pidOf(program));
    pids[`${name} (primary)`] = primary;
    workers.forEach((pid, i) => (pids[`${name} process ${i + 1}`] = pid));
  }
  pids['webhooks worker'] = await profile.pidOf('apps:worker-webhooks');
  pids['lifecycle worker'] = await profile.pidOf('apps:worker-lifecycle');
  pids['placements worker'] = await profile.pidOf('apps:worker-placements');
  pids['Temporal server'] = await profile.pidOf('temporal');
  pids['TLS proxy (HAProxy)'] = await profile.pidOf('proxy');
  return pids;
}
