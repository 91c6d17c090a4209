/**
 * Reads a placement file row by row as it streams from the store (never whole in memory), from any row on: each row
 * carries the byte offset just after it, so an import can resume at the row after its last committed chunk by
 * opening the file at that offset. CSV through `csv-parse` (quoted fields, embedded line breaks, a BOM, CRLF); NDJSON
 * one JSON object per line. Rows are numbered as a spreadsheet numbers them: a CSV's header is row 1, an NDJSON file's
 * first line is row 1; blank lines are no rows of a CSV and are skipped (but counted) in NDJSON.
 */
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { numberSourceText } from '../debts/json-numbers';
import { csvRowBody } from './placement-columns';
import type { RowProblem } from './row-problems';

export type PlacementFormat = 'csv' | 'ndjson';

/** The longest row read: longer is a malformed file (a CSV quote never closed swallows the rest of it). */
export const MAX_ROW_BYTES = 64 * 1024;

/** Where reading starts: the file's beginning is row 1 at offset 0 (a CSV's header, skipped). */
export interface RowPosition {
  row: number;
  offset: number;
}

export const FILE_START: RowPosition = { row: 1, offset: 0 };

export interface ReadRow {
  row: number;
  /** The row as the body of `POST /v1/debts`; absent when the row cannot be one (`problems` say why). */
  body?: Record<string, unknown>;
  problems?: RowProblem[];
  /** Where the next row starts. */
  next: RowPosition;
}

/** The file cannot be read on (an unclosed quote, a row past `MAX_ROW_BYTES`): the whole placement fails. */
export class PlacementFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlacementFileError';
  }
}

/**
 * The rows of `stream`, which starts at `from.offset` of the file. A CSV needs its header's `columns` (read once by
 * `readHeader`); at the file's start its header row is read past, not yielded.
 */
export function readRows(
  stream: Readable,
  format: PlacementFormat,
  from: RowPosition,
  columns: readonly string[] = [],
): AsyncGenerator<ReadRow> {
  return format === 'csv' ? csvRows(stream, from, columns) : ndjsonRows(stream, from);
}

/** A CSV's header row, or the keys of an NDJSON file's first object: what is checked before a file is accepted. */
export async function readHeader(stream: Readable, format: PlacementFormat): Promise<string[]> {
  try {
    if (format === 'csv') {
      for await (const record of csvRecords(stream, true)) return record.values;
      return [];
    }
    for await (const line of ndjsonLines(stream, 0)) {
      if (line.text.trim() === '') continue;
      const parsed = parseObject(line.text);
      return 'body' in parsed ? Object.keys(parsed.body).flatMap((k) => metadataColumns(k, parsed.body)) : [];
    }
    return [];
  } finally {
    stream.destroy();
  }
}

/** NDJSON metadata is an object; its keys are listed as the CSV columns they would be. */
function metadataColumns(key: string, body: Record<string, unknown>): string[] {
  const value = body[key];
  if (key !== 'metadata' || value === null || typeof value !== 'object' || Array.isArray(value)) return [key];
  return Object.keys(value).map((k) => `metadata.${k}`);
}

interface CsvRecord {
  values: string[];
  /** Bytes of the stream read up to the end of this record. */
  bytes: number;
}

async function* csvRecords(stream: Readable, atFileStart: boolean): AsyncGenerator<CsvRecord> {
  const parser = stream.pipe(
    parse({
      bom: atFileStart,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_ROW_BYTES,
    }),
  );
  stream.on('error', (err) => parser.destroy(err));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      yield { values: record, bytes: info.bytes };
    }
  } catch (err) {
    if (err instanceof CsvError) throw new PlacementFileError(`The file is not valid CSV: ${err.message}`);
    throw err;
  } finally {
    parser.destroy();
  }
}

async function* csvRows(stream: Readable, from: RowPosition, columns: readonly string[]): AsyncGenerator<ReadRow> {
  let row = from.row;
  for await (const record of csvRecords(stream, from.offset === 0)) {
    const next = { row: row + 1, offset: from.offset + record.bytes };
    if (row === 1) {
      row = next.row; // the header
      continue;
    }
    if (record.values.length !== columns.length) {
      const message = `has ${record.values.length} values; the header has ${columns.length} columns`;
      yield { row, problems: [{ field: null, code: 'invalid_request', message }], next };
    } else {
      yield { row, body: csvRowBody(columns, record.values), next };
    }
    row = next.row;
  }
}

interface Line {
  text: string;
  /** Offset (in the file) just past the line's `\n`. */
  end: number;
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The stream's lines with their byte offsets; a BOM at the file's start is dropped. */
async function* ndjsonLines(stream: Readable, offset: number): AsyncGenerator<Line> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let position = offset;
  const take = (tail: Buffer): Line => {
    const bytes = Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    const start = position;
    position += bytes.length;
    const body = start === 0 && bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
    return { text: body.toString('utf8').replace(/\r?\n$/, ''), end: position };
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      yield take(chunk.subarray(from, at + 1));
      from = at + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.subarray(from));
      pendingBytes += chunk.length - from;
      if (pendingBytes > MAX_ROW_BYTES) {
        throw new PlacementFileError(`The file has a line longer than ${MAX_ROW_BYTES} bytes.`);
      }
    }
  }
  if (pendingBytes > 0) yield take(Buffer.alloc(0));
}

function parseObject(text: string): { body: Record<string, unknown> } | { problem: RowProblem } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: { field: null, code: 'invalid_request', message: 'is not valid JSON' } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problem: { field: null, code: 'invalid_request', message: 'must be a JSON object' } };
  }
  const body = parsed as Record<string, unknown>;
  // The principal as written, as POST /v1/debts reads it (JSON.parse has made a number a binary double).
  const exact = numberSourceText(text, 'originalPrincipal', body.originalPrincipal);
  return { body: exact === undefined ? body : { ...body, originalPrincipal: exact } };
}

async function* ndjsonRows(stream: Readable, from: RowPosition): AsyncGenerator<ReadRow> {
  let row = from.row;
  for await (const line of ndjsonLines(stream, from.offset)) {
    const next = { row: row + 1, offset: line.end };
    if (line.text.trim() !== '') {
      const parsed = parseObject(line.text);
      yield 'body' in parsed ? { row, body: parsed.body, next } : { row, problems: [parsed.problem], next };
    }
    row = next.row;
  }
}
