import type { Knex } from 'knex';

/**
 * An index for every foreign key that had none its checks could use. Deleting a debt (a sandbox reset deletes a
 * tenant's debts 5,000 a statement, core/sandbox/wipe.ts) runs each cascade as `delete … where debt_id = $1` per
 * deleted row: without an index on `debt_id` that is a scan of the whole child table per debt, so a reset's cost grew
 * with the square of the sandbox's size. `portal_links` had only a partial index (live links), which such a delete
 * cannot use; `debtor_circumstances` and `payment_refunds` index `(organization_id, debt_id, …)`, which a lookup by
 * `debt_id` alone cannot use either. The others are deletes of an organisation or a staff user, one scan each, indexed
 * all the same so the rule has no exception (`test/integration/migrations.test.ts` checks it). Built concurrently:
 * these tables may be large.
 */
export const config = { transaction: false };

const INDEXES: readonly (readonly [table: string, column: string])[] = [
  ['portal_links', 'debt_id'],
  ['portal_links', 'organization_id'],
  ['debtor_circumstances', 'debt_id'],
  ['notification_reminder_starts', 'debt_id'],
  ['notification_reminder_starts', 'organization_id'],
  ['payment_refunds', 'debt_id'],
  ['debtor_contact_preferences', 'organization_id'],
  ['api_key_creators', 'staff_user_id'],
  ['audit_log', 'actor_user_id'],
];

const indexName = (table: string, column: string): string => `${table}_${column}_idx`;

export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of INDEXES) {
    // An index left invalid by an interrupted concurrent build is dropped and built again.
    await knex.raw(`drop index concurrently if exists ${indexName(table, column)}`);
    await knex.raw(`create index concurrently ${indexName(table, column)} on ${table} (${column})`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, column] of INDEXES)
    await knex.raw(`drop index concurrently if exists ${indexName(table, column)}`);
}
