import type { Knex } from 'knex';

/**
 * Placements (docs/placements.md): a creditor's file of accounts, imported as debts by the `placement-<id>` workflow.
 * The file's bytes live in the document store under `storage_key` (never in PostgreSQL); `next_row` and
 * `next_offset` are where the import resumes: the first row (and its byte offset in the file) that no committed
 * chunk has imported yet, moved in the same transaction as that chunk's debts. `columns` is the CSV header as read at
 * upload, so a chunk can parse from the middle of the file. Each row that was not imported leaves one or more
 * `placement_row_problems` (failed: invalid or refused; skipped: the account already has an open debt).
 * `organizations.placement_rows_per_second` overrides the default pace of an organisation's imports.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table placements (
      id uuid primary key,
      organization_id uuid not null references organizations (id) on delete cascade,
      status text not null default 'Validating' check (status in
        ('Validating', 'Importing', 'Completed', 'CompletedWithErrors', 'Failed', 'Cancelled')),
      validate_only boolean not null default false,
      format text not null check (format in ('csv', 'ndjson')),
      file_name text not null,
      storage_key text not null,
      size bigint not null,
      sha256 text not null,
      columns json,
      rows integer not null default 0,
      imported integer not null default 0,
      skipped integer not null default 0,
      failed integer not null default 0,
      next_row integer not null default 1,
      next_offset bigint not null default 0,
      cancel_requested boolean not null default false,
      failure_reason text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      completed_at timestamptz(3)
    );
    create index placements_by_organization on placements (organization_id, created_at desc, id desc);
    create index placements_by_storage_key on placements (storage_key);
    create table placement_row_problems (
      placement_id uuid not null references placements (id) on delete cascade,
      organization_id uuid not null,
      row_number integer not null,
      seq smallint not null,
      outcome text not null check (outcome in ('failed', 'skipped')),
      field text,
      code text not null,
      message text not null,
      existing_debt_id uuid,
      primary key (placement_id, row_number, seq)
    );
    alter table organizations add column placement_rows_per_second integer
      check (placement_rows_per_second is null or placement_rows_per_second > 0);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table organizations drop column placement_rows_per_second;
    drop table placement_row_problems;
    drop table placements;
  `);
}
