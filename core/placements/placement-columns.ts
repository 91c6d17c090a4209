/**
 * A placement file's columns (docs/placements.md): the fields of `POST /v1/debts`, an inline debtor's included, and
 * the debt's metadata as one `metadata.<key>` column per key. A CSV row becomes the same body `POST /v1/debts` takes,
 * every value a string; an empty cell is a field left out (so an optional column may be empty on some rows).
 */
import { INLINE_FIELDS } from '../debts/debt-creation';

/** Every column a placement file may have, metadata apart, in the order of the downloadable template. */
export const DEBT_COLUMNS = [
  'externalAccountId',
  'originalPrincipal',
  'currency',
  'clientReference',
  'debtorId',
  ...INLINE_FIELDS,
] as const;

export const METADATA_PREFIX = 'metadata.';

const KNOWN = new Set<string>(DEBT_COLUMNS);

/** A column of the file that is no field of `POST /v1/debts`, or the same column twice: refused up front. */
export interface ColumnProblem {
  column: string;
  message: string;
}

/** The header's problems: unknown names, repeated names, a `metadata.` with no key; none when it can be imported. */
export function headerProblems(header: readonly string[]): ColumnProblem[] {
  const problems: ColumnProblem[] = [];
  const seen = new Set<string>();
  for (const column of header) {
    if (seen.has(column)) problems.push({ column, message: 'appears more than once' });
    seen.add(column);
    if (column.startsWith(METADATA_PREFIX)) {
      if (column.length === METADATA_PREFIX.length) problems.push({ column, message: 'names no metadata key' });
    } else if (!KNOWN.has(column)) {
      problems.push({ column, message: 'is not a field of POST /v1/debts' });
    }
  }
  if (header.length === 0) problems.push({ column: '', message: 'the header row is empty' });
  return problems;
}

/** A CSV row as the body of `POST /v1/debts`: empty cells left out, `metadata.<key>` columns gathered. */
export function csvRowBody(columns: readonly string[], values: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let metadata: Record<string, string> | undefined;
  columns.forEach((column, i) => {
    const value = values[i];
    if (value === undefined || value === '') return;
    if (column.startsWith(METADATA_PREFIX)) {
      metadata ??= {};
      metadata[column.slice(METADATA_PREFIX.length)] = value;
    } else {
      body[column] = value;
    }
  });
  if (metadata) body.metadata = metadata;
  return body;
}
