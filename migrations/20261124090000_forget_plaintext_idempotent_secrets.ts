import type { Knex } from 'knex';

/**
 * Idempotency records are now saved with their response body sealed (core/platform/idempotency-store.ts). Records
 * saved before kept it in plain text, and the ones that answered a minted webhook secret hold that secret: forget
 * them now rather than let them live out their 24 hours. A retry with such a key is then treated as a new request,
 * which for `PUT /v1/webhooks` mints another secret (the client stores whichever it receives last). Other records
 * (no secret) are kept and still replay until they expire.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('idempotency_keys').whereRaw(`position('whsec_' in response_body) > 0`).delete();
}

/** Nothing to restore: the records are gone, and nothing needs them to be. */
export async function down(): Promise<void> {}
