/**
 * From a file to the import endpoint's rows. A CSV file's columns are converted to JSON types
 * (numbers, booleans, lists, photos, coordinates, custom fields); a JSON file's items are sent as
 * they are. Every row keeps where it came from ("line 12", "item 3") so the report can point at it.
 * The server remains the judge of values: conversion only fails where a cell cannot become the
 * JSON type its column needs (see docs/import.md for the format).
 */
import { AMENITIES } from '../shared/property-vocabulary.ts';
import { CsvSyntaxError, parseCsv } from './csv.ts';

/** One row of the file: the body to send, or the reasons it cannot be sent. */
export interface SourceRow {
  /** `line 12` (CSV, where the record starts) or `item 3` (JSON, array index from 0). */
  location: string;
  code: string | null;
  body: Record<string, unknown> | null;
  errors: { field: string; message: string }[];
}

/** The file cannot be read as a whole (syntax, header): nothing is imported. */
export class SourceFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceFileError';
  }
}

type ColumnKind = 'text' | 'number' | 'boolean' | 'amenities' | 'photos' | 'latitude' | 'longitude';

const COLUMNS: Record<string, ColumnKind> = {
  code: 'text',
  title: 'text',
  description: 'text',
  transactionType: 'text',
  type: 'text',
  status: 'text',
  publishedOnPortal: 'boolean',
  featured: 'boolean',
  price: 'number',
  currency: 'text',
  city: 'text',
  neighborhood: 'text',
  address: 'text',
  zipCode: 'text',
  latitude: 'latitude',
  longitude: 'longitude',
  approximateLocation: 'boolean',
  addressVisibility: 'text',
  coordinatePrecision: 'number',
  bedrooms: 'number',
  bathrooms: 'number',
  area: 'number',
  amenities: 'amenities',
  photos: 'photos',
  agentId: 'text',
  internalNotes: 'text',
};
/** Without these a row could never be created: refuse the file before sending anything. */
const REQUIRED_COLUMNS = ['code', 'title', 'transactionType', 'type', 'price', 'city'];
const CUSTOM_PREFIX = 'custom.';

/** `Transaction Type`, `transaction_type` and `transactionType` all name the same column. */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const COLUMN_BY_SQUASHED = new Map(Object.keys(COLUMNS).map((name) => [squash(name), name]));
const AMENITY_BY_SQUASHED = new Map(AMENITIES.map((name) => [squash(name), name]));

type Target = { kind: 'field'; name: string; type: ColumnKind } | { kind: 'custom'; name: string };

function headerTargets(header: string[]): Target[] {
  const targets: Target[] = [];
  const seen = new Map<string, string>();
  header.forEach((raw) => {
    const cell = raw.trim();
    let target: Target;
    if (cell.toLowerCase().startsWith(CUSTOM_PREFIX) && cell.length > CUSTOM_PREFIX.length) {
      target = { kind: 'custom', name: cell.slice(CUSTOM_PREFIX.length) };
    } else {
      const name = COLUMN_BY_SQUASHED.get(squash(cell));
      if (name === undefined) {
        throw new SourceFileError(
          `line 1: unknown column ${JSON.stringify(cell)}; the columns are ${Object.keys(COLUMNS).join(', ')} ` +
            `and ${CUSTOM_PREFIX}<name> for custom fields`,
        );
      }
      target = { kind: 'field', name, type: COLUMNS[name] as ColumnKind };
    }
    const id = `${target.kind}:${target.name}`;
    const previous = seen.get(id);
    if (previous !== undefined)
      throw new SourceFileError(
        `line 1: columns ${JSON.stringify(previous)} and ${JSON.stringify(cell)} are the same`,
      );
    seen.set(id, cell);
    targets.push(target);
  });
  const present = new Set(targets.filter((t) => t.kind === 'field').map((t) => t.name));
  const missing = REQUIRED_COLUMNS.filter((name) => !present.has(name));
  if (missing.length > 0) throw new SourceFileError(`line 1: missing column(s) ${missing.join(', ')}`);
  return targets;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);

function toNumber(cell: string): number {
  if (!NUMBER.test(cell))
    throw new Error(
      `${JSON.stringify(cell)} is not a number (write 1250.5: a dot for decimals, no thousands separator)`,
    );
  return Number(cell);
}

function toBoolean(cell: string): boolean {
  const lower = cell.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new Error(`${JSON.stringify(cell)} is not a boolean (true/false, 1/0 or yes/no)`);
}

/** `pool; Sea View|parking` -> ['pool', 'seaView', 'parking']: known names in any case or spacing. */
function toAmenities(cell: string): string[] {
  return cell
    .split(/[;|]/)
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => AMENITY_BY_SQUASHED.get(squash(item)) ?? item);
}

/** `url|caption;url|caption`, or a JSON array of `{url, caption}` when a caption holds `;` or `|`. */
function toPhotos(cell: string): unknown {
  if (cell.startsWith('[')) {
    try {
      return JSON.parse(cell);
    } catch {
      throw new Error('starts with [ but is not valid JSON');
    }
  }
  return cell
    .split(';')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const bar = item.indexOf('|');
      if (bar < 0) return { url: item };
      const caption = item.slice(bar + 1).trim();
      return caption === ''
        ? { url: item.slice(0, bar).trim() }
        : { url: item.slice(0, bar).trim(), caption };
    });
}

function convertRecord(targets: Target[], fields: string[], location: string): SourceRow {
  const body: Record<string, unknown> = {};
  const custom: Record<string, string> = {};
  const errors: { field: string; message: string }[] = [];
  let latitude: number | undefined;
  let longitude: number | undefined;
  targets.forEach((target, column) => {
    const raw = fields[column] ?? '';
    const cell = raw.trim();
    if (cell === '') return; // empty cell = absent field
    if (target.kind === 'custom') {
      custom[target.name] = cell;
      return;
    }
    try {
      switch (target.type) {
        case 'text':
          body[target.name] = cell;
          break;
        case 'number':
          body[target.name] = toNumber(cell);
          break;
        case 'boolean':
          body[target.name] = toBoolean(cell);
          break;
        case 'amenities':
          body[target.name] = toAmenities(cell);
          break;
        case 'photos':
          body[target.name] = toPhotos(cell);
          break;
        case 'latitude':
          latitude = toNumber(cell);
          break;
        case 'longitude':
          longitude = toNumber(cell);
          break;
      }
    } catch (error) {
      errors.push({ field: target.name, message: (error as Error).message });
    }
  });
  if ((latitude === undefined) !== (longitude === undefined)) {
    errors.push(
      latitude === undefined
        ? { field: 'latitude', message: 'is needed with longitude' }
        : { field: 'longitude', message: 'is needed with latitude' },
    );
  } else if (latitude !== undefined && longitude !== undefined) {
    body.coordinates = { latitude, longitude };
  }
  if (Object.keys(custom).length > 0) body.customFields = custom;
  // Fewer cells than columns: the missing ones are empty (some tools drop trailing empty cells).
  // More: data would be lost or shifted, so the row fails.
  if (fields.slice(targets.length).some((cell) => cell.trim() !== '')) {
    errors.unshift({
      field: '',
      message: `has ${fields.length} cells but the header has ${targets.length} columns (an unquoted comma?)`,
    });
  }
  const code = typeof body.code === 'string' ? body.code : null;
  return { location, code, body: errors.length > 0 ? null : body, errors };
}

/** The rows of a CSV file (header on line 1). */
export function rowsFromCsv(text: string): SourceRow[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new SourceFileError(error.message);
    throw error;
  }
  const [header, ...data] = records;
  if (!header) throw new SourceFileError('the file is empty (expected a header line and rows)');
  if (header.line !== 1) throw new SourceFileError('line 1 must be the header (found a blank line)');
  const targets = headerTargets(header.fields);
  return data.map((record) => convertRecord(targets, record.fields, `line ${record.line}`));
}

/** The rows of a JSON file: an array of objects in the API's own shape. */
export function rowsFromJson(text: string): SourceRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new SourceFileError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new SourceFileError('expected a JSON array of property objects');
  return parsed.map((item, index): SourceRow => {
    const location = `item ${index}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return { location, code: null, body: null, errors: [{ field: '', message: 'must be an object' }] };
    }
    const body = item as Record<string, unknown>;
    return { location, code: typeof body.code === 'string' ? body.code : null, body, errors: [] };
  });
}

/** A code used twice in one file is a mistake: the later rows fail, naming the first. */
export function markRepeatedCodes(rows: SourceRow[]): void {
  const first = new Map<string, string>();
  for (const row of rows) {
    if (row.body === null || row.code === null) continue;
    const seen = first.get(row.code);
    if (seen !== undefined) {
      row.errors.push({ field: 'code', message: `repeats the code of ${seen}` });
      row.body = null;
    } else {
      first.set(row.code, row.location);
    }
  }
}
