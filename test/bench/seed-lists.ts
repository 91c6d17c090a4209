/**
 * The list benchmarks' tenants, seeded once and kept: a tenant with N debts ("debts") or N events each with its
 * webhook delivery ("events"), found again by name on the next run when its row counts still match (seeding 1,000,000
 * rows takes minutes; looking them up takes milliseconds). Each run mints a fresh key for them. Everything is
 * INSERT … SELECT generate_series in SQL, so the rows never travel through Node.
 */
import { createOrganization } from '../../core/access/organizations';
import type { Db } from '../../core/platform/db';
import { seedDebts } from './seed-debts';
import { benchKey, type BenchTenant } from './support';

export type ListKind = 'debts' | 'events';

async function rowCounts(db: Db, kind: ListKind, organizationId: string): Promise<number[]> {
  const tables = kind === 'debts' ? ['debts'] : ['events', 'webhook_deliveries'];
  return Promise.all(
    tables.map(async (table) => {
      const row = await db(table).where({ organization_id: organizationId }).count<{ count: string }[]>('* as count');
      return Number(row[0]?.count ?? 0);
    }),
  );
}

/** N events (debt.created, a realistic small payload) one second apart, and one delivery of each. */
export async function seedEventsAndDeliveries(db: Db, organizationId: string, count: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into events (id, organization_id, type, data, created_at)
       select 'evt_' || md5(? || '-' || i), ?, 'debt.created',
              json_build_object('debt', json_build_object('id', gen_random_uuid(), 'status', 'Active',
                'externalAccountId', 'BENCH-' || i, 'outstandingPrincipal', 100 + i % 1000, 'currency', 'AUD')),
              now() - i * interval '1 second'
       from generate_series(1, ?) as i`,
      [organizationId, organizationId, count],
    );
    // The deliveries' foreign-key checks look each event up with a plan made now, from the statistics: made from
    // those of before this insert (an emptied table), it scanned the table for each delivery (100,000: 10 minutes).
    await trx.raw('analyze events');
    await trx.raw(
      `insert into webhook_deliveries (id, organization_id, event_id, event_type, url, secret_iv, secret_tag,
         secret_ciphertext, status, attempt_count, last_attempt_at, created_at, updated_at)
       select gen_random_uuid(), organization_id, id, type, 'https://receiver.example.com/hooks', '\\x00', '\\x00',
              '\\x00', 'Succeeded', 1, created_at, created_at, created_at
       from events where organization_id = ?`,
      [organizationId],
    );
  });
  await db.raw('analyze events');
  await db.raw('analyze webhook_deliveries');
}

/** The kept tenant with `rows` rows of `kind`, seeded now if missing or incomplete, with a fresh all-scopes key. */
export async function listTenant(db: Db, kind: ListKind, rows: number): Promise<BenchTenant> {
  // "v2": debts with a client reference and metadata; older kept tenants lack them and are seeded again.
  const name = kind === 'debts' ? `bench debts v2 ${rows}` : `bench ${kind} ${rows}`;
  const existing = await db('organizations').where({ name }).first<{ id: string } | undefined>('id');
  let organizationId = existing?.id;
  const expected = kind === 'debts' ? [rows] : [rows, rows];
  if (organizationId && (await rowCounts(db, kind, organizationId)).join() !== expected.join()) {
    await db('organizations').where({ id: organizationId }).delete();
    organizationId = undefined;
  }
  if (!organizationId) {
    const started = Date.now();
    organizationId = (await createOrganization(db, { name, mode: 'production' })).id;
    if (kind === 'debts') await seedDebts(db, organizationId, rows);
    else await seedEventsAndDeliveries(db, organizationId, rows);
    console.log(`  seeded ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next run)`);
  }
  return benchKey(db, organizationId);
}
