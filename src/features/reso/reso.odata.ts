// The OData query options RESO replication uses but `$filter` (reso.filter.ts), parsed strictly
// (docs/reso.md, decision 0234): everything outside them must be a 400 that says what is supported.
import { Errors } from '../../platform/errors/errors.ts';
import { RESO_FIELDS, type ResoField } from './reso.mapping.ts';

/** A parsed `$orderby`: one walk order (the other key breaks ties in the same direction). */
export interface Order {
  by: 'ModificationTimestamp' | 'ListingKey';
  direction: 'asc' | 'desc';
}
export const DEFAULT_ORDER: Order = { by: 'ModificationTimestamp', direction: 'asc' };

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,12}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant an OData DateTimeOffset literal names, as UTC text to the microsecond
 * (`2026-01-01T00:00:00.000000Z`; digits past the microsecond are dropped), or null when it is not one:
 * no zone, an impossible date or time (2026-02-30), or outside the years 1-9999.
 */
export function instantOf(text: string): string | null {
  const m = DATETIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '00'].map(
    Number,
  ) as [number, number, number, number, number, number];
  const local = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  if (
    local.getUTCFullYear() !== year ||
    local.getUTCMonth() !== month - 1 ||
    local.getUTCDate() !== day ||
    local.getUTCHours() !== hour ||
    local.getUTCMinutes() !== minute ||
    local.getUTCSeconds() !== second
  ) {
    return null;
  }
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const utc = new Date(local.getTime() - offset * 60_000);
  if (utc.getUTCFullYear() < 1 || utc.getUTCFullYear() > 9999) return null;
  const micros = (m[7] ?? '').padEnd(6, '0').slice(0, 6);
  return `${utc.toISOString().slice(0, 19)}.${micros}Z`;
}

const ORDER_SUPPORT =
  'supported: ModificationTimestamp asc|desc (ties by ListingKey in the same direction), ' +
  'ModificationTimestamp X,ListingKey X with one direction, or ListingKey asc|desc';

/** `$orderby`, parsed; a 400 naming `query.$orderby` for anything but the orders a keyset can walk. */
export function parseOrderBy(text: string): Order {
  const items = text.split(',').map((item) => item.trim().split(/\s+/));
  const fail = (message: string): never => {
    throw Errors.invalidField('query.$orderby', `${message}; ${ORDER_SUPPORT}`);
  };
  const parsed = items.map(([field = '', direction = 'asc', ...rest]) => {
    if (field === '' || rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
      return fail(`'${items.map((item) => item.join(' ')).join(',')}' is not a list of field [asc|desc]`);
    }
    if (field !== 'ModificationTimestamp' && field !== 'ListingKey') {
      const known = (RESO_FIELDS as readonly string[]).includes(field);
      return fail(known ? `${field} cannot be sorted on` : `${field} is not a field of Property`);
    }
    return { field, direction } as const;
  });
  const [first, second, ...more] = parsed;
  if (first === undefined || more.length > 0) return fail('at most two fields');
  if (second === undefined) return { by: first.field, direction: first.direction };
  if (
    first.field !== 'ModificationTimestamp' ||
    second.field !== 'ListingKey' ||
    first.direction !== second.direction
  ) {
    return fail(`${first.field} ${first.direction},${second.field} ${second.direction} is not supported`);
  }
  return { by: 'ModificationTimestamp', direction: first.direction };
}

/** `$select`, parsed: the fields in record order, or null for every field (`*`). */
export function parseSelect(text: string): ResoField[] | null {
  const names = text.split(',').map((name) => name.trim());
  if (names.length === 1 && names[0] === '*') return null;
  for (const name of names) {
    if (!(RESO_FIELDS as readonly string[]).includes(name)) {
      throw Errors.invalidField(
        'query.$select',
        `${name === '' ? 'has an empty item' : `${name} is not a field of Property`}; ` +
          `supported: * or a comma-separated list of ${RESO_FIELDS.join(', ')}`,
      );
    }
  }
  return RESO_FIELDS.filter((field) => names.includes(field));
}

/** `$expand`: only the Media navigation property (true), or none. */
export function parseExpand(text: string): boolean {
  const names = text.split(',').map((name) => name.trim());
  if (names.every((name) => name === 'Media')) return true;
  throw Errors.invalidField(
    'query.$expand',
    `${names.find((name) => name !== 'Media') || 'an empty item'} cannot be expanded; supported: Media`,
  );
}
