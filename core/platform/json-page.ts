/**
 * List pages whose JSON PostgreSQL writes (issue 13): the database builds each item as compact JSON text, exactly as
 * JSON.stringify would write the item the API used to shape in Node, and joins a page's items into one array. The
 * text goes out as the response body without being parsed in Node, which is most of a list route's CPU.
 *
 * The SQL builders here write compact JSON (no spaces), in the key order given, so a page is byte for byte what
 * `JSON.stringify({ data, nextCursor })` wrote before. test/integration/json-page.test.ts compares the two.
 */
import type { Knex } from 'knex';
import { statementName } from './prepared';

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

/**
 * Orders `query` (already filtered and past the cursor) newest first by `order`, takes `limit` + 1 rows to know
 * whether another page exists, and aggregates the first `limit` rows' `item` JSON into one array in the same
 * statement. `order` names the two columns of the keyset as `query` selects them.
 */
export async function fetchJsonRows<Position extends object>(
  db: Knex,
  query: Knex.QueryBuilder,
  options: { item: string; order: [string, string]; positionColumns: [string, string]; limit: number },
): Promise<JsonPageRows<Position>> {
  const { item, order, positionColumns, limit } = options;
  const [first, second] = positionColumns;
  const page = query
    .select(db.raw(`${item} as item`), db.raw(`${order[0]} as ??`, [first]), db.raw(`${order[1]} as ??`, [second]))
    .orderBy([
      { column: order[0], order: 'desc' },
      { column: order[1], order: 'desc' },
    ])
    .limit(limit + 1);
  // The wrapping is written as text around the compiled page query: compiling it as nested knex builders cost more
  // CPU than anything else the route does in Node, and twice (once to name the statement, once to run it).
  const inner = page.toSQL();
  for (const column of positionColumns) if (!/^[a-z_]+$/.test(column)) throw new Error(`not a column: ${column}`);
  const sql = `select '[' || coalesce(string_agg(item, ',' order by n) filter (where n <= ?), '') || ']' as data_json,
      (array_agg("${first}") filter (where n = ?))[1] as "${first}",
      (array_agg("${second}") filter (where n = ?))[1] as "${second}",
      count(*) > ? as has_more
    from (select *, row_number() over (order by "${first}" desc, "${second}" desc) as n from (${inner.sql}) as page)
      as numbered`;
  const { rows } = await db
    .raw<{ rows: (Record<string, unknown> & { data_json: string; has_more: boolean })[] }>(sql, [
      limit,
      limit,
      limit,
      limit,
      ...inner.bindings,
    ])
    .options({ name: statementName(sql) });
  const row = rows[0];
  if (!row) throw new Error('an aggregate returned no row');
  const last = row.has_more ? ({ [first]: row[first], [second]: row[second] } as Position) : undefined;
  return { dataJson: row.data_json, last };
}
