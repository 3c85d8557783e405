import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { ImportResult, ImportRowError } from './api-types.ts';
import { AdminApiError, ConnectionError } from './admin-client.ts';
import { CommandFailure, UsageError } from './cli-errors.ts';
import type { CliCommand, FlagSpecs } from './command.ts';
import {
  markRepeatedCodes,
  rowsFromCsv,
  rowsFromJson,
  SourceFileError,
  type SourceRow,
} from './property-rows.ts';

const MAX_BATCH_ROWS = 1000;
/** Under the server's 1 MiB body limit with room for the envelope: long descriptions make big rows. */
const MAX_BATCH_BYTES = 900_000;

const flags = {
  org: {
    kind: 'string',
    placeholder: 'ORG_ID',
    description: 'organization (or test twin) to import into',
    required: true,
  },
  'batch-size': {
    kind: 'integer',
    placeholder: 'N',
    description: `rows per request, 1-${MAX_BATCH_ROWS} (default 500; a batch is also cut at ~900 KB)`,
  },
  'dry-run': {
    kind: 'boolean',
    placeholder: '',
    description: 'check every row and count what would change; write nothing',
  },
} as const satisfies FlagSpecs;

/** One reported problem of the file, in file order. */
interface ReportedError {
  location: string;
  code: string | null;
  field: string;
  message: string;
}

export interface ImportSummary {
  file: string;
  organizationId: string;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: ReportedError[];
}

/** The server names row fields; a CSV user knows their columns (`latitude`, `custom.floor`). */
function columnOf(field: string, csv: boolean): string {
  if (!csv) return field;
  if (field.startsWith('coordinates.')) return field.slice('coordinates.'.length);
  if (field === 'customFields') return 'custom.*';
  if (field.startsWith('customFields.')) return `custom.${field.slice('customFields.'.length)}`;
  return field;
}

function formatError(error: ReportedError): string {
  const where = error.code ? `${error.location} (code ${error.code})` : error.location;
  return error.field ? `${where}: ${error.field}: ${error.message}` : `${where}: ${error.message}`;
}

/** Good rows in order, cut by count and by body size. */
function batches(rows: SourceRow[], size: number): SourceRow[][] {
  const out: SourceRow[][] = [];
  let current: SourceRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const rowBytes = Buffer.byteLength(JSON.stringify(row.body)) + 1;
    if (current.length > 0 && (current.length >= size || bytes + rowBytes > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += rowBytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

async function readRows(file: string): Promise<{ rows: SourceRow[]; csv: boolean }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CommandFailure(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const extension = extname(file).toLowerCase();
  // Unknown extension: a JSON array starts with `[`, a CSV file with its header.
  const json =
    extension === '.json' ||
    (extension !== '.csv' &&
      text
        .replace(/^\uFEFF/, '')
        .trimStart()
        .startsWith('['));
  try {
    return { rows: json ? rowsFromJson(text) : rowsFromCsv(text), csv: !json };
  } catch (error) {
    if (error instanceof SourceFileError)
      throw new CommandFailure(`${file}: ${error.message}; nothing was imported`);
    throw error;
  }
}

/** `import properties FILE`: POST /admin/v1/organizations/{org}/properties/import, in batches. */
export const importProperties: CliCommand<typeof flags> = {
  name: 'import properties',
  summary: 'Import properties from a CSV or JSON file (upsert by code)',
  positionals: ['FILE'],
  flags,
  notes: [
    'FILE is .csv (header line, then one property per record) or .json (an array of property',
    'objects as the admin API takes them). Rows are created or replaced by their `code`; importing',
    'the same file again changes nothing. Bad rows are listed with their line (CSV) or item (JSON)',
    'and reason on stderr; the good ones are imported. Format: docs/import.md.',
    '',
    'Exit codes: 0 every row imported (created, updated or unchanged); 1 some rows failed, the file',
    'could not be read, or the API refused; 2 usage error.',
  ].join('\n'),
  async run({ flags: f, args, client }) {
    const file = args[0] as string;
    const batchSize = f['batch-size'] ?? 500;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_ROWS) {
      throw new UsageError(
        `--batch-size must be between 1 and ${MAX_BATCH_ROWS}, got ${batchSize}`,
        'import properties',
      );
    }
    const dryRun = f['dry-run'] === true;
    const { rows, csv } = await readRows(file);
    markRepeatedCodes(rows);

    const errors: (ReportedError & { order: number })[] = [];
    rows.forEach((row, order) => {
      for (const e of row.errors) errors.push({ order, location: row.location, code: row.code, ...e });
    });
    const order = new Map(rows.map((row, index) => [row, index]));
    const totals = { created: 0, updated: 0, unchanged: 0 };
    const failedRows = new Set(rows.filter((row) => row.body === null));
    const path = `/admin/v1/organizations/${encodeURIComponent(f.org)}/properties/import`;

    let sent = 0;
    for (const batch of batches(
      rows.filter((row) => row.body !== null),
      batchSize,
    )) {
      let result: ImportResult;
      try {
        result = await client.request<ImportResult>('POST', path, {
          rows: batch.map((row) => row.body),
          ...(dryRun ? { dryRun: true } : {}),
        });
      } catch (error) {
        // Earlier batches are committed; a re-run is safe (idempotent), so say how far we got.
        if (sent > 0 && (error instanceof AdminApiError || error instanceof ConnectionError)) {
          error.message += ` (after ${sent} rows were sent in earlier batches, which are imported; re-running the import is safe)`;
        }
        throw error;
      }
      sent += batch.length;
      totals.created += result.created;
      totals.updated += result.updated;
      totals.unchanged += result.unchanged;
      for (const e of result.errors as ImportRowError[]) {
        const row = batch[e.index];
        if (!row) continue;
        failedRows.add(row);
        errors.push({
          order: order.get(row) ?? 0,
          location: row.location,
          code: row.code ?? e.code,
          field: columnOf(e.field, csv),
          message: e.message,
        });
      }
    }

    errors.sort((a, b) => a.order - b.order);
    const reported = errors.map(({ order: _order, ...e }) => e);
    const summary: ImportSummary = {
      file,
      organizationId: f.org,
      dryRun,
      rows: rows.length,
      ...totals,
      failed: failedRows.size,
      errors: reported,
    };
    const counts = dryRun
      ? `would create ${totals.created}, update ${totals.updated}; ${totals.unchanged} unchanged, ${failedRows.size} failed`
      : `${totals.created} created, ${totals.updated} updated, ${totals.unchanged} unchanged, ${failedRows.size} failed`;
    const lines = [
      `${dryRun ? 'Dry run (nothing written): ' : ''}${rows.length} rows in ${file} for ${f.org}: ${counts}`,
    ];
    if (failedRows.size > 0)
      lines.push(`The failed rows are listed above; fix them and run the import again.`);
    return {
      data: summary,
      summary: lines.join('\n'),
      report: reported.length > 0 ? `${reported.map(formatError).join('\n')}\n` : undefined,
      exitCode: failedRows.size > 0 ? 1 : 0,
    };
  },
};
