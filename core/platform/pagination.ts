/**
 * Keyset pagination over (created_at, id), newest first (DECISIONS.md §2). Cursors are opaque base64url JSON
 * naming the list they belong to, so a cursor of one list used on another is rejected, not misread.
 */
import type { Knex } from 'knex';
import { errors } from './errors';
import { isUuid } from './ids';
import type { Db } from './db';
import { fetchJsonRows, JsonPage } from './json-page';
import { statementName } from './prepared';
import type { SqlPart } from './sql-part';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

interface Position {
  createdAt: Date;
  id: string;
}

export function encodeCursor(list: string, position: Position): string {
  return Buffer.from(JSON.stringify({ l: list, t: position.createdAt.toISOString(), i: position.id })).toString(
    'base64url',
  );
}

export function decodeCursor(list: string, cursor: string, isValidId: (id: string) => boolean = isUuid): Position {
  const invalid = () =>
    errors.invalidRequest('The cursor is not valid for this list.', [
      { path: 'query.cursor', message: 'is not a cursor of this list' },
    ]);
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { l, t, i } = (parsed ?? {}) as { l?: unknown; t?: unknown; i?: unknown };
  if (l !== list || typeof t !== 'string' || typeof i !== 'string' || !isValidId(i)) throw invalid();
  const createdAt = cursorTime(t);
  if (!createdAt) throw invalid();
  return { createdAt, id: i };
}

/**
 * The time exactly as `encodeCursor` writes it: ISO 8601 UTC with milliseconds, a four-digit year from 1970, a real
 * date. `new Date` takes much more (years up to 275760, year 0, other formats) that PostgreSQL refuses or misreads.
 */
function cursorTime(t: string): Date | undefined {
  if (!/^(19[7-9][0-9]|[2-9][0-9]{3})-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/.test(t))
    return undefined;
  const time = new Date(t);
  return !Number.isNaN(time.getTime()) && time.toISOString() === t ? time : undefined;
}

export interface PageOptions<Row> {
  /** Names the list inside its cursors, e.g. "debts". */
  list: string;
  page: PageRequest;
  /** Qualified column names, e.g. `debts.created_at`. */
  createdAtColumn: string;
  idColumn: string;
  position: (row: Row) => Position;
  /** Checks a cursor's id before it reaches SQL; defaults to UUIDs. */
  isValidId?: (id: string) => boolean;
}

/**
 * Applies the keyset condition, order and limit to `query` and shapes the page. `Row` is what the caller's query
 * selects: knex's types cannot carry a selection through the clauses added here, so this is the one place where a
 * list's rows are given their type. Fetches one row more than asked
 * to know whether another page exists, so the last page's `nextCursor` is null without a second query.
 */
export async function fetchPage<Row, Item>(
  query: Knex.QueryBuilder,
  options: PageOptions<Row>,
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const { list, page, createdAtColumn, idColumn } = options;
  const after = page.cursor ? decodeCursor(list, page.cursor, options.isValidId) : undefined;
  const afterCursor = after
    ? query.whereRaw(`(??, ??) < (?, ?)`, [createdAtColumn, idColumn, after.createdAt, after.id])
    : query;
  const ordered = afterCursor
    .orderBy([
      { column: createdAtColumn, order: 'desc' },
      { column: idColumn, order: 'desc' },
    ])
    .limit(page.limit + 1);
  const rows = await named(ordered).then((selected: Row[]) => selected);
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  return {
    data: items.map(toItem),
    nextCursor: hasMore && last ? encodeCursor(list, options.position(last)) : null,
  };
}

/**
 * The page's statement as a named prepared statement (core/platform/prepared.ts): a list takes a few shapes (its
 * filters, with or without a cursor), and every value stays a bound parameter, so PostgreSQL parses and plans each
 * shape once per connection instead of on every page. Not a `select *`: a statement prepared before a migration adds
 * a column would then fail ("cached plan must not change result type") until the process restarts.
 */
const SELECTS_ALL = /(?:\bselect\s+|,\s*|"\.)\*/i;

function named(query: Knex.QueryBuilder): Knex.QueryBuilder {
  const { sql } = query.toSQL().toNative();
  return SELECTS_ALL.test(sql) ? query : query.options({ name: statementName(sql) });
}

export interface JsonPageOptions {
  list: string;
  page: PageRequest;
  /** The table listed, and the conditions its rows meet (the tenant's first). */
  from: string;
  where: SqlPart[];
  /** The item's JSON text as a SQL expression (core/platform/json-page.ts builds them). */
  item: string;
  isValidId?: (id: string) => boolean;
  /**
   * Walk another table's index instead (e.g. `metadata_pairs` for a metadata filter): its rows joined to `from`'s,
   * the keyset read from its copies of `created_at` and `id`.
   */
  via?: { table: string; join: string; createdAt: string; id: string };
}

/**
 * `fetchPage` with the page's JSON written by PostgreSQL: the same keyset (`created_at`, `id`), order and cursors,
 * one statement, and the items never parsed in Node.
 */
export async function fetchJsonPage(db: Db, options: JsonPageOptions): Promise<JsonPage> {
  const { list, page, from, via } = options;
  const after = page.cursor ? decodeCursor(list, page.cursor, options.isValidId) : undefined;
  const [createdAt, id] = via
    ? [`${via.table}.${via.createdAt}`, `${via.table}.${via.id}`]
    : [`${from}.created_at`, `${from}.id`];
  const { dataJson, last } = await fetchJsonRows<{ created_at: Date; id: string }>(db, {
    from: via ? via.table : from,
    join: via?.join,
    where: [
      ...options.where,
      ...(after ? [{ sql: `(${createdAt}, ${id}) < (?, ?)`, bindings: [after.createdAt, after.id] }] : []),
    ],
    item: options.item,
    order: [createdAt, id],
    positionColumns: ['created_at', 'id'],
    limit: page.limit,
  });
  return new JsonPage(dataJson, last ? encodeCursor(list, { createdAt: last.created_at, id: last.id }) : null);
}
