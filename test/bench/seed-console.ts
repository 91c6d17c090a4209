/**
 * The console benchmark's tenants, seeded once and kept (as the list tenants are): N events of a realistic mix of
 * types spread evenly over the last 29 days at every size (the newest an hour old; the Overview's charts then have the
 * same shape at 1,000 and 1,000,000, and only the rows behind them differ), one webhook delivery each (one in 16
 * `Failed` after six attempts, an hour after its event; the rest `Succeeded`), N / 10 debts over every status, and a
 * payment on one debt in four over 12 weeks. A tenant seeded more than three days ago is seeded again, so the
 * Overview's seven-day window of failures is never empty. Everything is INSERT … SELECT generate_series in SQL.
 * Each run signs a staff user of the tenant in through the session store (core/staff/sessions.ts), as a magic link
 * would, without the mail.
 */
import { createOrganization } from '../../core/access/organizations';
import { loadConfig } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { createRedis, redisReady } from '../../core/platform/redis';
import { createSessionStore } from '../../core/staff/sessions';
import { createStaffUser, findStaffUserByEmail, type StaffUser } from '../../core/staff/staff-users';
import { cookieNames } from '../../web/console/shared/http';
import { seedDebts } from './seed-debts';

/**
 * One delivery in this many has failed (its six attempts made, the last an hour after its event): a receiver that
 * fails now and then, and enough failures at the smallest tenant to fill the Failed filter's page.
 */
export const FAILED_EVERY = 16;
/**
 * A rare event type: RARE_EVENTS of them at every tenant size, spread over its history, so the filter's page holds
 * the same 50 at 1,000 and 1,000,000 deliveries while the tenant's other deliveries between them grow a thousandfold.
 */
export const RARE_EVENT_TYPE = 'plan.defaulted';
const RARE_EVENTS = 60;
const RESEED_AFTER_MS = 3 * 86_400_000;

/** The other event types by share of 100. */
const TYPE_SHARES: [string, number][] = [
  ['debt.created', 45],
  ['debt.updated', 40],
  ['payment.received', 10],
  ['debt.accepted', 3],
  ['debt.disputed', 2],
];

export interface ConsoleTenant {
  organizationId: string;
  deliveries: number;
  /** The `Cookie` header of a signed-in admin of the tenant. */
  cookie: string;
  /** The newest `Failed` delivery: the one the Overview's banner leads to, with its six attempts. */
  failedDeliveryId: string;
}

/** `case` giving event `i` of `count` its type: the rare one every count / RARE_EVENTS, else by the shares above. */
function typeOf(i: string, count: number): string {
  let upTo = 0;
  const arms = TYPE_SHARES.map(([type, share]) => {
    upTo += share;
    return `when ${i} % 100 < ${upTo} then '${type}'`;
  });
  const step = Math.max(1, Math.floor(count / RARE_EVENTS));
  return `case when ${i} % ${step} = 0 then '${RARE_EVENT_TYPE}' ${arms.join(' ')} end`;
}

async function seedConsoleTenant(db: Db, organizationId: string, count: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into events (id, organization_id, type, data, created_at)
       select 'evt_' || md5(? || '-' || i), ?, ${typeOf('i', count)},
              json_build_object('debt', json_build_object('id', gen_random_uuid(), 'status', 'Active',
                'externalAccountId', 'BENCH-' || i, 'outstandingPrincipal', 100 + i % 1000, 'currency', 'AUD')),
              now() - interval '1 hour' - i * (interval '29 days' / ?)
       from generate_series(1, ?) as i`,
      [organizationId, organizationId, count, count],
    );
    // The delivery's number is its event's: the same `i`, recovered from the event's age order.
    await trx.raw(
      `insert into webhook_deliveries (id, organization_id, event_id, event_type, url, secret_iv, secret_tag,
         secret_ciphertext, status, attempt_count, last_attempt_at, created_at, updated_at)
       select gen_random_uuid(), organization_id, id, type, 'https://receiver.example.com/hooks', '\\x00', '\\x00',
              '\\x00', case when failed then 'Failed' else 'Succeeded' end, case when failed then 6 else 1 end,
              created_at + case when failed then interval '1 hour' else interval '0.2 second' end, created_at,
              created_at + case when failed then interval '1 hour' else interval '0.2 second' end
       from (select e.*, row_number() over (order by created_at desc) % ${FAILED_EVERY} = 7 as failed
             from events e where organization_id = ?) numbered`,
      [organizationId],
    );
    await trx.raw(
      `insert into webhook_delivery_attempts (delivery_id, number, url, started_at, succeeded, http_status, latency_ms,
         error, response_body)
       select d.id, n, d.url, d.created_at + (n - 1) * interval '12 minutes', false, 503, 180 + n * 7, null,
              '{"error":"receiver unavailable","retryAfter":60}'
       from webhook_deliveries d cross join generate_series(1, 6) as n
       where d.organization_id = ? and d.status = 'Failed'`,
      [organizationId],
    );
  });
  await seedDebts(db, organizationId, Math.max(10, Math.floor(count / 10)));
  // A payment on one debt in four, spread over the last 12 weeks: the Overview's collected chart has data.
  await db.raw(
    `insert into transactions (id, organization_id, debt_id, direction, status, type, amount, currency, created_at,
       updated_at)
     select gen_random_uuid(), organization_id, id, 'Inbound', 'Succeeded', 'Payment', 10 + n % 90 + 0.25, currency,
            now() - (n % 84) * interval '1 day', now() - (n % 84) * interval '1 day'
       from (select d.*, row_number() over (order by id) as n from debts d where organization_id = ?) numbered
      where n % 4 = 0`,
    [organizationId],
  );
  // Vacuumed as autovacuum soon would: the counts' index-only scans then skip the heap, as they do in production.
  for (const table of ['events', 'webhook_deliveries', 'webhook_delivery_attempts', 'debts', 'transactions']) {
    await db.raw(`vacuum (analyze) ${table}`);
  }
}

/** The kept tenant with `count` deliveries, seeded now if missing, incomplete or older than three days. */
async function consoleOrganization(db: Db, count: number): Promise<string> {
  const name = `bench console v4 ${count}`;
  const existing = await db('organizations')
    .where({ name })
    .first<{ id: string; created_at: Date } | undefined>('id', 'created_at');
  if (existing) {
    const [row] = await db('webhook_deliveries')
      .where({ organization_id: existing.id })
      .count<{ count: string }[]>('* as count');
    const fresh = Date.now() - existing.created_at.getTime() < RESEED_AFTER_MS;
    if (fresh && Number(row?.count) === count) return existing.id;
    await db('organizations').where({ id: existing.id }).delete();
  }
  const started = Date.now();
  const { id } = await createOrganization(db, { name, mode: 'production' });
  await seedConsoleTenant(db, id, count);
  console.log(`  seeded ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next run)`);
  return id;
}

async function benchAdmin(db: Db, organizationId: string): Promise<StaffUser> {
  const email = `bench-console-${organizationId}@example.com`;
  return (
    (await findStaffUserByEmail(db, email)) ?? (await createStaffUser(db, organizationId, { email, role: 'admin' }))
  );
}

/**
 * The tenant, and a fresh session of its admin, made by the console's own session store in the Redis the API reads,
 * under the cookie name the API's configuration gives it.
 */
export async function consoleTenant(
  db: Db,
  count: number,
  /** `secureCookies` as in seed-portal.ts's signInToPortal. */
  env: { databaseUrl: string; redisUrl: string; secureCookies?: boolean },
): Promise<ConsoleTenant> {
  const organizationId = await consoleOrganization(db, count);
  const user = await benchAdmin(db, organizationId);
  const config = loadConfig({ ...process.env, DATABASE_URL: env.databaseUrl, REDIS_URL: env.redisUrl });
  const redis = createRedis(env.redisUrl);
  try {
    await redisReady(redis);
    const sessions = createSessionStore({
      redis,
      mode: config.mode,
      settings: {
        idleTimeoutMs: config.console.sessionIdleTimeoutMs,
        absoluteLifetimeMs: config.console.sessionAbsoluteLifetimeMs,
      },
    });
    const id = await sessions.create({ userId: user.id, organizationId, email: user.email, role: user.role });
    const failed = await db('webhook_deliveries')
      .where({ organization_id: organizationId, status: 'Failed' })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first<{ id: string }>('id');
    if (!failed) throw new Error(`the console tenant of ${count} deliveries has no failed delivery`);
    const cookie = `${cookieNames(env.secureCookies ?? config.console.secureCookies).session}=${id}`;
    return { organizationId, deliveries: count, cookie, failedDeliveryId: failed.id };
  } finally {
    await redis.quit();
  }
}
