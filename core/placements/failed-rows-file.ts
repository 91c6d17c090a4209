/**
 * The downloads of a placement's problems (the console's Placements page): the failed rows exactly as uploaded, with
 * the CSV's header, so the client can fix them and upload that file again (an `error` column would be refused as an
 * unknown column, so the problems come as a second file); and the problems themselves, one line each. Both stream:
 * the file is read from the store row by row, the problems from the database a page at a time.
 */
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { DocumentStore } from '../documents/store';
import type { Db } from '../platform/db';
import { listRowErrors, type PlacementRow } from './placements';
import { MAX_ROW_BYTES } from './row-reader';

/** The row numbers of a placement's failed rows (skipped rows are imported already: nothing to fix). */
async function failedRowNumbers(db: Db, placement: PlacementRow): Promise<Set<number>> {
  const rows = await db('placement_row_problems')
    .where({ organization_id: placement.organization_id, placement_id: placement.id, outcome: 'failed' })
    .distinct<{ row_number: number }[]>('row_number');
  return new Set(rows.map((r) => r.row_number));
}

/**
 * A record's text with its line ending as in the file: csv-parse's `raw` keeps a CRLF's `\r` but not the `\n`, and
 * the last record may have none (then it gets the file's, as the header ended).
 */
function withLineEnd(raw: string, crlf: boolean): string {
  if (raw.endsWith('\r')) return `${raw}\n`;
  if (raw.endsWith('\n')) return raw;
  return `${raw}${crlf ? '\r\n' : '\n'}`;
}

async function* csvFailedRows(stream: Readable, failed: Set<number>): AsyncGenerator<string> {
  const parser = stream.pipe(
    parse({ bom: true, raw: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_ROW_BYTES }),
  );
  stream.on('error', (err) => parser.destroy(err));
  let row = 1; // numbered as the import numbers them: the header is row 1
  let crlf = false;
  try {
    for await (const { raw } of parser as AsyncIterable<{ raw: string }>) {
      if (row === 1) crlf = raw.endsWith('\r');
      if (row === 1 || failed.has(row)) yield withLineEnd(raw, crlf);
      row += 1;
    }
  } finally {
    parser.destroy();
  }
}

async function* ndjsonFailedRows(stream: Readable, failed: Set<number>): AsyncGenerator<string> {
  let row = 1; // every line counts, blank ones too
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (failed.has(row)) yield `${row === 1 ? line.replace(/^\uFEFF/, '') : line}\n`;
    row += 1;
  }
}

/**
 * The failed rows of `placement`'s stored file, as uploaded (a CSV with its header row); undefined once the file's
 * retention has ended (core/placements/file-retention.ts).
 */
export async function failedRowsFile(
  deps: { db: Db; store: DocumentStore },
  placement: PlacementRow,
): Promise<Readable | undefined> {
  if (placement.file_deleted_at) return undefined;
  const failed = await failedRowNumbers(deps.db, placement);
  const stream = await deps.store.get(placement.storage_key);
  return Readable.from(placement.format === 'csv' ? csvFailedRows(stream, failed) : ndjsonFailedRows(stream, failed));
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const PROBLEM_COLUMNS = ['row', 'outcome', 'field', 'code', 'message', 'existingDebtId'];

/** Every problem of the placement's rows, in row order, as CSV. */
export function rowProblemsFile(db: Db, placement: PlacementRow): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield `${PROBLEM_COLUMNS.join(',')}\r\n`;
    let cursor: string | undefined;
    do {
      const page = await listRowErrors(db, placement.organization_id, placement.id, { limit: 1000, cursor });
      if (!page) return;
      for (const p of page.data) {
        const values = [String(p.row), p.outcome, p.field ?? '', p.code, p.message, p.existingDebtId ?? ''];
        yield `${values.map(csvCell).join(',')}\r\n`;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return Readable.from(lines());
}
