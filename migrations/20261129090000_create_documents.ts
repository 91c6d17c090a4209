import type { Knex } from 'knex';

/**
 * Documents attached to debts (docs/documents.md). The bytes live in the configured DocumentStore under
 * `storage_key`; the row is written only once the object is stored, so every row names a complete object (an object
 * without a row is an orphan the retention sweep deletes). `file_name` is metadata only, never a path.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('documents', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.uuid('debt_id').notNullable();
    t.text('kind')
      .notNullable()
      .checkIn(['Agreement', 'Statement', 'Notice', 'Correspondence', 'Other'], 'documents_kind');
    t.text('description').nullable();
    t.text('file_name').notNullable();
    t.text('content_type')
      .notNullable()
      .checkIn(['application/pdf', 'image/png', 'image/jpeg'], 'documents_content_type');
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('storage_key').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.foreign(['organization_id', 'debt_id']).references(['organization_id', 'id']).inTable('debts');
  });
  await knex.raw('create index documents_by_debt on documents (organization_id, debt_id, created_at desc, id desc)');
  await knex.raw('create index documents_by_storage_key on documents (storage_key)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('documents');
}
