/**
 * Bulk seeding for the debt benchmarks: gives an organisation `count` debts (and one debtor per ten debts) with two
 * INSERT … SELECT generate_series statements, so 100,000 debts take seconds rather than minutes. Debts are spread
 * one second apart going back from now, over the non-terminal and terminal states, so list filters have data; debt i
 * has the client reference `LOAN-<i>` and the metadata `{"crmId": "C-<i>"}`.
 */
import type { Db } from '../../core/platform/db';
import { DEBT_STATUSES } from '../../core/debts/debt-status';

export interface SeededDebts {
  debts: number;
  debtors: number;
}

export async function seedDebts(db: Db, organizationId: string, count: number): Promise<SeededDebts> {
  const debtors = Math.max(1, Math.ceil(count / 10));
  const run = Date.now().toString(36); // keeps references and accounts unique when a tenant is seeded twice
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into debtors (id, organization_id, reference_id, first_name, last_name, email)
       select gen_random_uuid(), ?, 'BENCH-' || ? || '-' || i, 'Bench', 'Debtor ' || i, 'bench' || i || '@example.com'
       from generate_series(1, ?) as i`,
      [organizationId, run, debtors],
    );
    await trx.raw(
      `with pool as (
         select id, row_number() over (order by id) - 1 as n from debtors
         where organization_id = ? and reference_id like 'BENCH-' || ? || '-%'
       )
       insert into debts (id, organization_id, debtor_id, external_account_id, client_reference, metadata,
                          original_principal, outstanding_principal, currency, status, created_at, updated_at)
       select gen_random_uuid(), ?, pool.id, 'BENCH-' || ? || '-' || i, 'LOAN-' || i, ('{"crmId":"C-' || i || '"}')::json,
              100 + (i % 1000) + 0.25, 100 + (i % 1000) + 0.25,
              'AUD', (?::text[])[1 + i % ?], now() - i * interval '1 second', now() - i * interval '1 second'
       from generate_series(1, ?) as i
       join pool on pool.n = i % ?`,
      [organizationId, run, organizationId, run, [...DEBT_STATUSES], DEBT_STATUSES.length, count, debtors],
    );
  });
  await db.raw('analyze debtors');
  await db.raw('analyze debts');
  return { debts: count, debtors };
}

/**
 * A live portal link for each of the tenant's debts, as raising a debt with a debtor email leaves one (its token's
 * hash only; nobody signs in with these).
 */
export async function seedPortalLinks(db: Db, organizationId: string): Promise<void> {
  await db.raw(
    `insert into portal_links (id, organization_id, debt_id, token_hash)
     select gen_random_uuid(), organization_id, id, encode(sha256(convert_to(id::text, 'UTF8')), 'hex')
       from debts where organization_id = ?`,
    [organizationId],
  );
  await db.raw('analyze portal_links');
}
