import type { Knex } from 'knex';

/**
 * Sealed webhook secrets name the key that sealed them (core/platform/secret-box.ts: the key's fingerprint), so the
 * key can rotate: WEBHOOK_SECRET_KEY seals, WEBHOOK_SECRET_KEY_PREVIOUS still opens, and `npm run cli -- secrets
 * reseal` moves every value to the current key. Rows sealed before this migration keep null: they open under
 * whichever configured key authenticates them, and the reseal command stamps them.
 */
const TABLES = ['webhook_configs', 'webhook_deliveries'];

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => t.string('secret_key_id', 16).nullable());
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('secret_key_id'));
  }
}
