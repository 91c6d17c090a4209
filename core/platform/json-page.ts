/**
 * List pages whose JSON PostgreSQL writes: the database builds each item as compact JSON text, exactly as
 * JSON.stringify would write the item the API used to shape in Node, and joins a page's items into one array. The
 * text goes out as the response body without being parsed in Node, which is most of a list route's CPU.
 *
 * The SQL builders here write compact JSON (no spaces), in the key order given, so a page is byte for byte what
 * `JSON.stringify({ data, nextCursor })` wrote before. test/integration/json-page.test.ts compares the two.
 */
import type { Knex } from 'knex';
import { cachedIn } from './bounded-cache';
import type { Db } from './db';
import { nativeText, runStatement, statementName, type NamedStatement } from './prepared';
import type { SqlPart } from './sql-part';

/** A page whose items are already JSON text; the HTTP layer sends it as `{"data":[…],"nextCursor":…}`. */
export class JsonPage {
  constructor(
    /** The JSON array of the page's items. */
    readonly dataJson: string,
    readonly nextCursor: string | null,
  ) {}

  withCursor(nextCursor: string | null): JsonPage {
    return new JsonPage(this.dataJson, nextCursor);
  }

  /** The response body: the same bytes JSON.stringify wrote for a `Page`. */
  toText(): string {
    return `{"data":${this.dataJson},"nextCursor":${JSON.stringify(this.nextCursor)}}`;
  }

  /** So that a JsonPage stringified anywhere else still writes the page, not its fields. */
  toJSON(): { data: unknown; nextCursor: string | null } {
    return { data: JSON.parse(this.dataJson), nextCursor: this.nextCursor };
  }
}

/** A SQL expression (text) giving a value's JSON: strings escaped as JSON.stringify does, NULL as null. */
export function jsonValue(sql: string): string {
  return `coalesce(to_json(${sql})::text, 'null')`;
}

/** A timestamptz as `Date.toISOString()` writes it (columns are timestamptz(3): milliseconds are exact). */
export function jsonTime(sql: string): string {
  return `coalesce('"' || to_char(${sql} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
}

/** A JSON object from `[key, value SQL]` pairs, in that order; values are JSON text expressions (the above). */
export function jsonObject(fields: [string, string][]): string {
  const parts = fields.map(([key, value], i) => `'${i === 0 ? '{' : ','}${JSON.stringify(key)}:' || ${value}`);
  return `(${parts.join(' || ')} || '}')`;
}

export interface JsonPageRows<Position> {
  dataJson: string;
  /** The position of the page's last item when another page follows. */
  last: Position | undefined;
}

/** One page of a list, newest first, as SQL text: the code's own table and column names, the values bound. */
export interface JsonListQuery {
  /** The table listed; `where`, `item` and `order` name its columns. */
  from: string;
  /** A join of the code's own after `from` (e.g. the listed records reached through an index table). */
  join?: string;
  /** Conditions, all of which hold: each a SQL text with a `?` for each of its bindings, in order. */
  where: SqlPart[];
  /** The item's JSON text as a SQL expression (the builders above). */
  item: string;
  /** The two columns of the keyset, newest first by both. */
  order: [string, string];
  /** The names under which the page's last position comes back. */
  positionColumns: [string, string];
  limit: number;
}

/**
 * `column = ?` for each filter that has a value (qualified by `table` when given: a list read through a join); the
 * columns are the code's own names, never the client's.
 */
export function equalTo(filters: Record<string, Knex.RawBinding | undefined>, table?: string): SqlPart[] {
  const qualified = (column: string) => (table ? `${sqlName(table)}.${sqlName(column)}` : sqlName(column));
  return Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => ({ sql: `${qualified(column)} = ?`, bindings: [value as Knex.RawBinding] }));
}

/**
 * Reads the page `query` describes: orders the rows newest first by `order`, takes `limit` + 1 of them to know whether
 * another page exists, and aggregates the first `limit` rows' `item` JSON into one array, in one named statement.
 * The statement is written as text here, not composed with knex: compiling nested builders and then knex's pass over
 * the long text for placeholders on every request were most of what the route spent in Node besides the response
 * (each shape's text is written, converted and named once: `pageStatement`).
 */
export async function fetchJsonRows<Position extends object>(
  db: Db,
  query: JsonListQuery,
): Promise<JsonPageRows<Position>> {
  const { limit } = query;
  const [firstName, secondName] = query.positionColumns;
  for (const part of query.where) {
    if (part.sql.split('?').length !== part.bindings.length + 1) throw new Error(`bindings do not match: ${part.sql}`);
  }
  const values = [limit, limit, limit, limit, ...query.where.flatMap((part) => part.bindings), limit + 1];
  const [row] = await runStatement<Record<string, unknown> & { data_json: string; has_more: boolean }>(
    db,
    pageStatement(db, query),
    values,
  );
  if (!row) throw new Error('an aggregate returned no row');
  const last = row.has_more ? ({ [firstName]: row[firstName], [secondName]: row[secondName] } as Position) : undefined;
  return { dataJson: row.data_json, last };
}

/**
 * Each list's page statements, by item (a constant text per list, whose hash the engine keeps) and then by the rest of
 * the shape (short texts: the filters present, with or without a cursor). Composing the page's long text, converting
 * its placeholders and naming it on every request were a few microseconds and a few kilobytes of garbage a page.
 */
const pageStatements = new Map<string, Map<string, NamedStatement>>();

function pageStatement(db: Db, query: JsonListQuery): NamedStatement {
  const { item, order, positionColumns } = query;
  const shape = [query.from, query.join ?? '', ...order, ...positionColumns, ...query.where.map((part) => part.sql)];
  const shapes = cachedIn(pageStatements, item, () => new Map<string, NamedStatement>());
  return cachedIn(shapes, shape.join('\n'), () => {
    const text = nativeText(db, pageSql(query));
    return { name: statementName(text), text };
  });
}

/** The page's statement with knex's `?` placeholders (bound in the order `fetchJsonRows` gives the values). */
function pageSql(query: JsonListQuery): string {
  const { item, order } = query;
  const [first, second] = query.positionColumns.map(sqlName);
  const conditions = query.where.map((part) => part.sql);
  return `select '[' || coalesce(string_agg(item, ',' order by n) filter (where n <= ?), '') || ']' as data_json,
      (array_agg(${first}) filter (where n = ?))[1] as ${first},
      (array_agg(${second}) filter (where n = ?))[1] as ${second},
      count(*) > ? as has_more
    from (select *, row_number() over (order by ${first} desc, ${second} desc) as n
      from (select ${item} as item, ${order[0]} as ${first}, ${order[1]} as ${second}
        from ${sqlName(query.from)} ${query.join ?? ''}
        where ${conditions.length ? conditions.join(' and ') : 'true'}
        order by ${order[0]} desc, ${order[1]} desc
        limit ?) as page) as numbered`;
}

/** A name of the code's own (a table or column), quoted; anything else is a bug, refused before it reaches SQL. */
function sqlName(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a plain SQL name: ${name}`);
  return `"${name}"`;
}
