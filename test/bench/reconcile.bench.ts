/**
 * One pass of the webhook delivery reconciler (core/webhooks/reconcile.ts) over a backlog of 1,000,000 Pending
 * deliveries: 999,000 waiting for a retry that is not due yet and 1,000 whose retry is an hour late
 * and whose run is gone (no workflow on the dev server). The pass must finish within its activity's timeout (4
 * minutes); it prints how long it took, how many deliveries it looked at and how many it started again. The tenant is
 * seeded once with INSERT … SELECT generate_series and kept (as the list tenants are); each run re-arms its 1,000 lost
 * deliveries and forgets the reconciler's position. Quick mode: 2,000 deliveries, removed afterwards.
 */
import { Client } from '@temporalio/client';
import { createOrganization } from '../../core/access/organizations';
import { createDb, type Db } from '../../core/platform/db';
import { NAMESPACES } from '../../core/temporal/names';
import { RECONCILE_BUDGET_MS, reconcileDeliveries } from '../../core/webhooks/reconcile';
import { startDevServer, uniqueTaskQueue } from '../support/temporal';
import { check, observe, type BenchReport } from './report';

export const RECONCILE_SCENARIO = 'webhook reconciler';
/** The activity's start-to-close timeout (workflows/webhook-reconcile.ts). */
const PASS_TIMEOUT_S = 240;
/** One delivery in this many is lost (its retry an hour late, no run behind it). */
const LOST_EVERY = 1_000;

export interface ReconcileBenchOptions {
  report: BenchReport;
  databaseUrl: string;
  /** Pending deliveries in the backlog; 1,000,000 by default. */
  deliveries?: number;
  /** Remove the tenant afterwards (quick mode) instead of keeping it for the next run. */
  removeAfter?: boolean;
}

export async function benchReconcile(options: ReconcileBenchOptions): Promise<void> {
  const count = options.deliveries ?? 1_000_000;
  const db = createDb(options.databaseUrl, { pool: { min: 0, max: 4 }, unboundedStatements: true }); // the seeder
  const temporal = await startDevServer({ persisted: true });
  let organizationId: string | undefined;
  try {
    organizationId = await backlogTenant(db, count);
    await rearm(db, organizationId);
    const client = new Client({ connection: temporal.connection, namespace: NAMESPACES.production });
    const started = process.hrtime.bigint();
    const pass = await reconcileDeliveries({
      db,
      mode: 'production',
      client,
      taskQueue: uniqueTaskQueue('bench-reconcile'), // no worker: the restarted runs only need to exist
      organizationId,
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `\nwebhook reconciler, one pass over ${count.toLocaleString('en')} Pending deliveries ` +
        `(${(count / LOST_EVERY).toLocaleString('en')} overdue and lost): ${seconds.toFixed(2)} s, ` +
        `looked at ${pass.checked}, started again ${pass.fixes.length}, complete ${pass.complete}`,
    );
    const scenario = RECONCILE_SCENARIO;
    check(options.report, {
      scenario,
      name: `one pass at ${count.toLocaleString('en')} Pending deliveries (s; the activity times out at ${PASS_TIMEOUT_S} s)`,
      value: seconds,
      unit: 's',
      bound: { atMost: PASS_TIMEOUT_S },
    });
    observe(options.report, { scenario, name: 'deliveries looked at in the pass', value: pass.checked, unit: '' });
    observe(options.report, { scenario, name: 'lost deliveries started again', value: pass.fixes.length, unit: '' });
    if (!pass.complete) console.log(`  (the pass spent its ${RECONCILE_BUDGET_MS / 1000} s budget; the next resumes)`);
  } finally {
    if (organizationId && options.removeAfter) await db('organizations').where({ id: organizationId }).delete();
    await db.destroy();
    await temporal.teardown();
  }
}

/** The kept tenant with `count` Pending deliveries, seeded now if missing or incomplete. */
async function backlogTenant(db: Db, count: number): Promise<string> {
  const name = `bench reconcile ${count}`;
  const existing = await db('organizations').where({ name }).first<{ id: string } | undefined>('id');
  if (existing) {
    const [row] = await db('webhook_deliveries')
      .where({ organization_id: existing.id, status: 'Pending' })
      .count<{ count: string }[]>('* as count');
    if (Number(row?.count) === count) return existing.id;
    await db('organizations').where({ id: existing.id }).delete();
  }
  const started = Date.now();
  const { id } = await createOrganization(db, { name, mode: 'production' });
  await seedBacklog(db, id, count);
  console.log(`  seeded ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next run)`);
  return id;
}

/**
 * N events and their Pending deliveries, each started a day ago with one failed attempt; the next attempts spread
 * over the coming day, except every LOST_EVERY-th, marked by its URL, which `rearm` makes overdue.
 */
async function seedBacklog(db: Db, organizationId: string, count: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into events (id, organization_id, type, data, created_at)
       select 'evt_' || md5(? || '-reconcile-' || i), ?, 'test.ping', '{}'::jsonb, now() - interval '1 day'
       from generate_series(1, ?) as i`,
      [organizationId, organizationId, count],
    );
    await trx.raw(
      `insert into webhook_deliveries (id, organization_id, event_id, event_type, url, secret_iv, secret_tag,
         secret_ciphertext, status, attempt_count, last_attempt_at, next_attempt_at, workflow_started_at,
         created_at, updated_at)
       select gen_random_uuid(), organization_id, id, type,
              case when row_number() over () % ? = 0 then 'https://receiver.example.com/lost'
                   else 'https://receiver.example.com/hooks' end,
              '\\x00', '\\x00', '\\x00', 'Pending', 1, created_at,
              now() + interval '1 hour' + random() * interval '1 day', created_at, created_at, created_at
       from events where organization_id = ?`,
      [LOST_EVERY, organizationId],
    );
  });
  await db.raw('analyze events');
  await db.raw('analyze webhook_deliveries');
}

/** Makes the lost deliveries overdue again (a previous run restarted them), keeps the others waiting, and forgets the position. */
async function rearm(db: Db, organizationId: string): Promise<void> {
  await db.raw(
    `update webhook_deliveries
        set generation = 0, attempt_base = 0, workflow_started_at = now() - interval '1 day',
            updated_at = now() - interval '1 day', next_attempt_at = now() - interval '1 hour'
      where organization_id = ? and url like '%/lost'`,
    [organizationId],
  );
  // Waiting deliveries seeded more than a day ago would have fallen due meanwhile: push them into the coming day.
  await db.raw(
    `update webhook_deliveries set next_attempt_at = next_attempt_at + interval '7 days'
      where organization_id = ? and status = 'Pending' and url like '%/hooks' and next_attempt_at < now() + interval '1 hour'`,
    [organizationId],
  );
  await db('webhook_reconcile_positions').where('scope', 'like', `%${organizationId}`).delete();
}
