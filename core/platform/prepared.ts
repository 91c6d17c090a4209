/**
 * Named prepared statements for the hot paths' queries. node-postgres sends an unnamed statement for every
 * query, which PostgreSQL parses and plans anew each time; for a list page that planning costs about as much CPU as
 * running it. A query given a name here is parsed once per connection and planned once, generically
 * (`plan_cache_mode`, set on every connection by core/platform/db.ts). The name is derived from the SQL text, so two
 * different texts never share a name (pg refuses that), and the values stay bound parameters.
 *
 * Only for queries whose text takes a few shapes (ids and limits bound, never inlined): every distinct text is one
 * more statement kept on each connection. A transaction-pooling proxy between the API and PostgreSQL (PgBouncer before
 * 1.21) would need its prepared-statement support turned on (docs/operators/scaling.md).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { cachedIn } from './bounded-cache';
import type { Db, Trx } from './db';

/** The texts seen so far and their names. */
const names = new Map<string, string>();

export function statementName(sql: string): string {
  return cachedIn(names, sql, () => `q_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`);
}

/**
 * The same query, to run as a named prepared statement. Naming it compiles it once more than running it does: cheap
 * for a raw statement or a small insert; a hot query built from several knex builders names its own SQL text instead
 * (core/platform/json-page.ts).
 */
export function prepared<Query extends Knex.QueryBuilder | Knex.Raw>(query: Query): Query {
  const { sql } = query.toSQL().toNative();
  return query.options({ name: statementName(sql) }) as Query;
}

/**
 * Runs a statement written with PostgreSQL's own `$1`, `$2`… parameters as a named statement on a connection of
 * knex's pool, beneath knex's builder and runner: for a hot query whose SQL is already text, knex's own work per query
 * (scanning the long text for `?` placeholders, compiling it again to name it, wrapping the call) was about a tenth of
 * the API's CPU. On the pool it takes a connection for the one query; in a transaction it runs on the transaction's
 * own connection (knex's transaction client hands out no other), in order with the transaction's other statements as
 * long as its caller awaits each.
 */
export function queryNamed<Row>(db: Db | Trx, text: string, values: unknown[]): Promise<Row[]> {
  return runStatement<Row>(db, { name: statementName(text), text }, values);
}

/** A statement's text with PostgreSQL's `$n` parameters and its name, for a caller that keeps it between queries. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** `queryNamed` for a statement already named: no lookup of its (long) text on each query. */
export async function runStatement<Row>(db: Db | Trx, statement: NamedStatement, values: unknown[]): Promise<Row[]> {
  // knex refuses a query on a finished transaction; beneath it, the connection may already serve another.
  if (db.isTransaction && (db as Trx).isCompleted()) throw new Error('queryNamed on a finished transaction');
  const client = db.client as Knex.Client;
  const connection = (await client.acquireConnection()) as pg.ClientBase;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>({ ...statement, values });
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** Texts with knex's `?` placeholders and the same texts with PostgreSQL's `$n`. */
const nativeTexts = new Map<string, string>();

/**
 * `queryNamed` for a statement written with knex's `?` placeholders (as `trx.raw` takes them), converted to `$n` by
 * knex's own rule once per text.
 */
export function queryNamedRaw<Row>(db: Db | Trx, sql: string, bindings: unknown[]): Promise<Row[]> {
  return queryNamed<Row>(db, nativeText(db, sql), bindings);
}

/** A text with knex's `?` placeholders as PostgreSQL's `$n`, by knex's own rule, converted once per text. */
export function nativeText(db: Db | Trx, sql: string): string {
  return cachedIn(nativeTexts, sql, () => String((db.client as Knex.Client).positionBindings(sql)));
}
