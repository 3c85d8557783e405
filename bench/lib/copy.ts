/**
 * Bulk loading with COPY ... FROM STDIN (pg-copy-streams): rows are generated in Node as lines of
 * COPY's text format and streamed to PostgreSQL in chunks, with backpressure, so generation (Node)
 * and ingestion (the backend) run at the same time on different cores.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** One value in COPY's text format: `\N` for null, backslash, tab and line breaks escaped. */
export function copyValue(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
      )
    : value;
}

/** A text[] value as a PostgreSQL array literal (each element quoted), ready for copyValue. */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** A row: the values in column order, joined as COPY expects (no trailing newline). */
export const copyRow = (values: ReadonlyArray<string | number | boolean | null | undefined>) =>
  values.map(copyValue).join('\t');

const CHUNK_CHARS = 256 * 1024;

function* chunks(rows: Iterable<string>): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    chunk += `${row}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Streams `rows` (lines made by copyRow) into `table (columns)`; answers the rows PostgreSQL took. */
export async function copyInto(
  client: pg.Client | pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<string>,
): Promise<number> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks(rows), { objectMode: false }), stream);
  return stream.rowCount;
}
