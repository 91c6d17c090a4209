import type { Knex } from 'knex';

/**
 * An index for each new list filter, ending in the list's order (newest first), so a filtered page
 * is one index range scan at any table size: debts by `externalAccountId` and by `clientReference`, transactions by
 * `status`, `type` and `direction`. Built concurrently: the tables may be large.
 */
export const config = { transaction: false };

const INDEXES: [string, string][] = [
  ['debts_by_external_account', 'debts (organization_id, external_account_id, created_at desc, id desc)'],
  ['debts_by_client_reference', 'debts (organization_id, client_reference, created_at desc, id desc)'],
  ['transactions_by_status', 'transactions (organization_id, status, created_at desc, id desc)'],
  ['transactions_by_type', 'transactions (organization_id, type, created_at desc, id desc)'],
  ['transactions_by_direction', 'transactions (organization_id, direction, created_at desc, id desc)'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, on] of INDEXES) await knex.raw(`create index concurrently if not exists ${name} on ${on}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}
