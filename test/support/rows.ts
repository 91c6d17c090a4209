/** Reading rows straight from the test database, typed by their table (core/platform/tables.ts). */

/** The row `query` must find; a missing one fails the test here rather than as a TypeError further on. */
export async function foundRow<T>(query: PromiseLike<T>, what = 'row'): Promise<NonNullable<T>> {
  const row = await query;
  if (row === undefined || row === null) throw new Error(`expected the database to hold the ${what}`);
  return row;
}
