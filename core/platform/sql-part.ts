import type { Knex } from 'knex';

/** A piece of SQL with its `?` bindings in order, for statements composed from several modules' CTEs. */
export interface SqlPart {
  sql: string;
  bindings: Knex.RawBinding[];
}
