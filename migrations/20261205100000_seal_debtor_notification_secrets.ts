import type { Knex } from 'knex';

/**
 * The secrets a debtor email carries (its opt-out token, and a portal link's token), sealed on the notification's
 * row from the first attempt to send it until it is handled (core/notifications/message-secrets.ts): a retried send
 * mails the same links, so the copy a slow relay did deliver keeps working. Sealed as webhook secrets are
 * (AES-256-GCM under WEBHOOK_SECRET_KEY, the row's id as associated data), and cleared once the row is handled.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table debtor_notifications
      add column secret_key_id text,
      add column secret_iv bytea,
      add column secret_tag bytea,
      add column secret_ciphertext bytea
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table debtor_notifications
      drop column secret_key_id, drop column secret_iv, drop column secret_tag, drop column secret_ciphertext
  `);
}
