/**
 * A small RFC 4180 reader: quoted fields with embedded delimiters, line breaks and doubled quotes,
 * CRLF or LF line ends, a leading byte-order mark, and blank lines skipped. Each record keeps the
 * physical line it starts on, so a report can say "line 12" of a record whose description spans
 * three lines. The delimiter is `,` unless the header line has more `;` or tabs (spreadsheets in
 * comma-decimal locales export with `;`).
 */

export interface CsvRecord {
  /** 1-based physical line where the record starts (the header is line 1). */
  line: number;
  fields: string[];
}

/** The file is not valid CSV; `line` is where the problem starts. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
  }
}

const CANDIDATES = [',', ';', '\t'] as const;

/** The delimiter of the first line, counted outside quotes. */
export function detectDelimiter(text: string): string {
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = ',';
  for (const candidate of CANDIDATES) {
    if ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0)) best = candidate;
  }
  return best;
}

/** Parses `text` into records (header included); throws CsvSyntaxError on a malformed quote. */
export function parseCsv(
  input: string,
  delimiter = detectDelimiter(input.replace(/^\uFEFF/, '')),
): CsvRecord[] {
  const text = input.replace(/^\uFEFF/, '');
  const records: CsvRecord[] = [];
  let line = 1;
  let recordLine = 1;
  let fields: string[] = [];
  let field = '';
  // A record with a single empty unquoted field is a blank line: skipped.
  let sawContent = false;
  let i = 0;

  const endField = () => {
    fields.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    if (sawContent || fields.length > 1) records.push({ line: recordLine, fields });
    fields = [];
    sawContent = false;
  };

  while (i < text.length) {
    const char = text[i] as string;
    if (char === '"' && field === '') {
      // A quote at the start of a field opens a quoted field, up to the next quote not doubled.
      // Elsewhere (`5" screen`) a quote is an ordinary character, as spreadsheets write it.
      const startLine = line;
      sawContent = true;
      i += 1;
      for (;;) {
        if (i >= text.length)
          throw new CsvSyntaxError(startLine, 'a quoted field starting here is never closed');
        const c = text[i] as string;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (c === '\n') line += 1;
        else if (c === '\r' && text[i + 1] !== '\n') line += 1;
        field += c;
        i += 1;
      }
      const next = text[i];
      if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r') {
        throw new CsvSyntaxError(
          line,
          `unexpected ${JSON.stringify(next)} after a closing quote (a quote inside a quoted field is written "")`,
        );
      }
      continue;
    }
    if (char === delimiter) {
      sawContent = true;
      endField();
      i += 1;
    } else if (char === '\n' || char === '\r') {
      i += char === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else {
      sawContent = true;
      field += char;
      i += 1;
    }
  }
  if (field !== '' || fields.length > 0 || sawContent) endRecord();
  return records;
}
