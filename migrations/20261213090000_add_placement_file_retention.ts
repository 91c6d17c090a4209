import type { Knex } from 'knex';

/**
 * Retention of placement files (docs/placements.md "How long files are kept"): a finished placement's stored file is
 * deleted some days after it finished, by the retention purge; the placement and its rows' problems stay.
 * `file_deleted_at` records that its file went (the row still names the key, which other rows may share: keys are
 * content addresses). The partial index lists the finished placements whose file is still kept, oldest first, which
 * is all the purge reads. The table is small (one row per uploaded file), so the index is built in the transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table placements add column file_deleted_at timestamptz(3);
    create index placements_file_kept_by_completion on placements (completed_at)
      where file_deleted_at is null and completed_at is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index placements_file_kept_by_completion;
    alter table placements drop column file_deleted_at;
  `);
}
