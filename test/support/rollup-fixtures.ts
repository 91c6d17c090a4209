/**
 * Rows for the Overview rollups' tests (migration 20261211090000), written straight into the source tables as any
 * writer would, and each rollup compared with the same figures aggregated from its source table.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

const DAY_MS = 86_400_000;

export interface DeliverySpec {
  status: 'Pending' | 'Succeeded' | 'Failed';
  attemptCount?: number;
  /** When it last changed (and was created), this long ago. */
  agoMs?: number;
}

/** An event and its delivery per spec, in one statement each; returns the deliveries' ids in order. */
export async function insertDeliveries(db: Knex, organizationId: string, specs: DeliverySpec[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const now = Date.now();
  const rows = specs.map((s) => ({
    eventId: `evt_${randomBytes(16).toString('hex')}`,
    id: randomUUID(),
    at: new Date(now - (s.agoMs ?? 0)),
    ...s,
  }));
  await db('events').insert(
    rows.map((r) => ({
      id: r.eventId,
      organization_id: organizationId,
      type: 'debt.created',
      data: {},
      created_at: r.at,
    })),
  );
  await db('webhook_deliveries').insert(
    rows.map((r) => ({
      id: r.id,
      organization_id: organizationId,
      event_id: r.eventId,
      event_type: 'debt.created',
      url: 'https://receiver.example.com/hooks',
      secret_iv: Buffer.alloc(1),
      secret_tag: Buffer.alloc(1),
      secret_ciphertext: Buffer.alloc(1),
      status: r.status,
      attempt_count: r.attemptCount ?? (r.status === 'Pending' ? 0 : r.status === 'Failed' ? 6 : 1),
      created_at: r.at,
      updated_at: r.at,
    })),
  );
  return rows.map((r) => r.id);
}

/** `n` deliveries of each of `days` days back from today (day 0), alternating Succeeded and Failed by `failEvery`. */
export function dailyDeliveries(days: number, perDay: (day: number) => number, failEvery: number): DeliverySpec[] {
  const specs: DeliverySpec[] = [];
  for (let day = 0; day < days; day++) {
    for (let i = 0; i < perDay(day); i++) {
      specs.push({ status: i % failEvery === 0 ? 'Failed' : 'Succeeded', agoMs: day * DAY_MS + 60_000 });
    }
  }
  return specs;
}

/** Each rollup as `key → value` (slots summed, zero keys left out) beside the same aggregate of its source rows. */
const PAIRS: { name: string; rollup: string; source: string }[] = [
  {
    name: 'debt_status_counts',
    rollup: `select status as key, sum(count)::text as value from debt_status_counts where organization_id = ?
              group by status having sum(count) <> 0`,
    source: `select status as key, count(*)::text as value from debts where organization_id = ? group by status`,
  },
  {
    name: 'webhook_delivery_days',
    rollup: `select day || ' ' || status as key, sum(count)::text as value from webhook_delivery_days
              where organization_id = ? group by day, status having sum(count) <> 0`,
    source: `select (updated_at at time zone 'UTC')::date || ' ' || status as key, count(*)::text as value
               from webhook_deliveries where organization_id = ? and status in ('Succeeded', 'Failed')
              group by 1`,
  },
  {
    name: 'webhook_deliveries_retrying',
    rollup: `select 'retrying' as key, sum(count)::text as value from webhook_deliveries_retrying
              where organization_id = ? having sum(count) <> 0`,
    source: `select 'retrying' as key, count(*)::text as value from webhook_deliveries
              where organization_id = ? and status = 'Pending' and attempt_count > 0 having count(*) > 0`,
  },
  {
    name: 'payments_collected_weekly',
    rollup: `select week || ' ' || currency as key, trim_scale(sum(amount))::text || ' / ' || sum(payments) as value
               from payments_collected_weekly where organization_id = ?
              group by week, currency having sum(amount) <> 0 or sum(payments) <> 0`,
    source: `select date_trunc('week', created_at at time zone 'UTC')::date || ' ' || currency as key,
                    trim_scale(sum(amount))::text || ' / ' || count(*) as value
               from transactions
              where organization_id = ? and direction = 'Inbound' and status = 'Succeeded' and type = 'Payment'
              group by 1`,
  },
];

type Figures = Record<string, Record<string, string>>;

async function figures(db: Knex, organizationId: string, side: 'rollup' | 'source'): Promise<Figures> {
  const out: Figures = {};
  for (const pair of PAIRS) {
    const { rows } = await db.raw<{ rows: { key: string; value: string }[] }>(pair[side], [organizationId]);
    out[pair.name] = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }
  return out;
}

/** The rollups' figures and the source tables' for the organisation: equal when the rollups are right. */
export async function rollupsAndSources(
  db: Knex,
  organizationId: string,
): Promise<{ rollups: Figures; sources: Figures }> {
  return { rollups: await figures(db, organizationId, 'rollup'), sources: await figures(db, organizationId, 'source') };
}

/** Every rollup row of the organisation (any count), by table. */
export async function rollupRowCount(db: Knex, organizationId: string): Promise<number> {
  let total = 0;
  for (const table of PAIRS.map((p) => p.name)) {
    const [row] = await db(table).where({ organization_id: organizationId }).count<{ count: number }[]>('* as count');
    total += Number(row?.count ?? 0);
  }
  return total;
}
