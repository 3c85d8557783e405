// The OData query options RESO replication uses, parsed strictly (docs/reso.md, decision 0234): a small
// hand-written grammar, because everything outside it must be a 400 that says what is supported.
import { Errors } from '../../platform/errors/errors.ts';
import type { PropertyStatus } from '../../shared/property-vocabulary.ts';
import {
  RESO_FIELDS,
  STANDARD_STATUSES,
  statusesOf,
  type ResoField,
  type StandardStatus,
} from './reso.mapping.ts';

export const COMPARISONS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/**
 * A parsed `$filter`: comparisons on ModificationTimestamp (its instant as UTC text to the
 * microsecond) and StandardStatus (as the statuses of ours it stands for), combined with and, or, not.
 */
export type Filter =
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; operand: Filter }
  | { kind: 'modified'; op: Comparison; instant: string }
  | { kind: 'status'; negated: boolean; values: StandardStatus[]; statuses: PropertyStatus[] };

/** A parsed `$orderby`: one walk order (the other key breaks ties in the same direction). */
export interface Order {
  by: 'ModificationTimestamp' | 'ListingKey';
  direction: 'asc' | 'desc';
}
export const DEFAULT_ORDER: Order = { by: 'ModificationTimestamp', direction: 'asc' };

const FILTER = 'query.$filter';
const FILTERABLE = ['ModificationTimestamp', 'StandardStatus'];
/** What a `$filter` may hold, in the words of every 400 about it. */
export const FILTER_SUPPORT =
  'supported: ModificationTimestamp with eq, ne, gt, ge, lt or le and a date-time with its zone ' +
  "(2026-01-01T00:00:00Z), StandardStatus with eq or ne and a quoted value ('Active') or in ('Active','Pending'), " +
  'combined with and, or, not (...) and parentheses';
/** Nesting and size bounds: a filter is a handful of comparisons, never a program. */
const MAX_DEPTH = 10;
const MAX_COMPARISONS = 50;

type Token =
  | { kind: '(' | ')' | ','; at: number }
  | { kind: 'word' | 'datetime' | 'other'; text: string; at: number }
  | { kind: 'string'; value: string; at: number };

const fail = (message: string): never => {
  throw Errors.invalidField(FILTER, `${message}; ${FILTER_SUPPORT}`);
};

const describe = (token: Token | undefined): string => {
  if (token === undefined) return 'the end';
  if (token.kind === 'string') return `'${token.value}' at ${token.at + 1}`;
  if ('text' in token) return `'${token.text}' at ${token.at + 1}`;
  return `'${token.kind}' at ${token.at + 1}`;
};

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

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t') {
      i += 1;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, at: i });
      i += 1;
    } else if (c === "'") {
      const at = i;
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) fail(`the string starting at ${at + 1} is not closed`);
        if (text[i] === "'" && text[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (text[i] === "'") {
          i += 1;
          break;
        } else {
          value += text[i];
          i += 1;
        }
      }
      tokens.push({ kind: 'string', value, at });
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_./]*/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'word', text: word, at: i });
      i += word.length;
    } else if (/[0-9+-]/.test(c)) {
      const run = /^[0-9A-Za-z:.+-]+/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: DATETIME.test(run) ? 'datetime' : 'other', text: run, at: i });
      i += run.length;
    } else {
      fail(`'${c}' at ${i + 1} is not understood`);
    }
  }
  return tokens;
}

/** Recursive descent over the tokens: or < and < not (...) < comparison. */
class FilterParser {
  private position = 0;
  private comparisons = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.or(0);
    const rest = this.tokens[this.position];
    if (rest !== undefined) fail(`expected and, or or the end, found ${describe(rest)}`);
    return filter;
  }

  private peekWord(word: string): boolean {
    const token = this.tokens[this.position];
    return token?.kind === 'word' && token.text === word;
  }

  private expect(kind: '(' | ')' | ',', what: string): void {
    const token = this.tokens[this.position];
    if (token?.kind !== kind) fail(`expected ${what}, found ${describe(token)}`);
    this.position += 1;
  }

  private or(depth: number): Filter {
    let left = this.and(depth);
    while (this.peekWord('or')) {
      this.position += 1;
      left = { kind: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  private and(depth: number): Filter {
    let left = this.unary(depth);
    while (this.peekWord('and')) {
      this.position += 1;
      left = { kind: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): Filter {
    if (depth > MAX_DEPTH) fail(`parentheses nest deeper than ${MAX_DEPTH}`);
    const token = this.tokens[this.position];
    if (token?.kind === '(') {
      this.position += 1;
      const inner = this.or(depth + 1);
      this.expect(')', "')'");
      return inner;
    }
    if (this.peekWord('not')) {
      this.position += 1;
      if (this.tokens[this.position]?.kind !== '(') fail('not takes a parenthesized expression: not (...)');
      return { kind: 'not', operand: this.unary(depth + 1) };
    }
    return this.comparison();
  }

  private comparison(): Filter {
    const field = this.tokens[this.position];
    if (field?.kind !== 'word') return fail(`expected a field, found ${describe(field)}`);
    this.position += 1;
    if (this.tokens[this.position]?.kind === '(')
      fail(`functions such as ${field.text}(...) are not supported`);
    if (!FILTERABLE.includes(field.text)) {
      const known = (RESO_FIELDS as readonly string[]).includes(field.text);
      fail(known ? `${field.text} cannot be filtered on` : `${field.text} is not a field of Property`);
    }
    this.comparisons += 1;
    if (this.comparisons > MAX_COMPARISONS) fail(`more than ${MAX_COMPARISONS} comparisons`);
    const op = this.tokens[this.position];
    this.position += 1;
    const name = op?.kind === 'word' ? op.text : undefined;
    if (field.text === 'ModificationTimestamp') {
      if (!(COMPARISONS as readonly string[]).includes(name ?? '')) {
        fail(`ModificationTimestamp takes eq, ne, gt, ge, lt or le, not ${describe(op)}`);
      }
      return { kind: 'modified', op: name as Comparison, instant: this.instant() };
    }
    if (name === 'in') {
      this.expect('(', "'(' after in");
      const values = [this.status()];
      while (this.tokens[this.position]?.kind === ',') {
        this.position += 1;
        values.push(this.status());
      }
      this.expect(')', "')' or ',' in the in list");
      return statusFilter(values, false);
    }
    if (name !== 'eq' && name !== 'ne') fail(`StandardStatus takes eq, ne or in, not ${describe(op)}`);
    return statusFilter([this.status()], name === 'ne');
  }

  private instant(): string {
    const token = this.tokens[this.position];
    this.position += 1;
    const instant = token?.kind === 'datetime' ? instantOf(token.text) : null;
    if (instant === null) {
      return fail(
        `ModificationTimestamp is compared with a date-time with its zone, such as 2026-01-01T00:00:00Z ` +
          `(a + offset is sent as %2B), found ${describe(token)}`,
      );
    }
    return instant;
  }

  private status(): StandardStatus {
    const token = this.tokens[this.position];
    this.position += 1;
    if (token?.kind !== 'string' || !(STANDARD_STATUSES as readonly string[]).includes(token.value)) {
      return fail(
        `StandardStatus is compared with a quoted RESO value (${STANDARD_STATUSES.map((s) => `'${s}'`).join(', ')}), ` +
          `found ${describe(token)}`,
      );
    }
    return token.value as StandardStatus;
  }
}

function statusFilter(values: StandardStatus[], negated: boolean): Filter {
  const unique = [...new Set(values)];
  return { kind: 'status', negated, values: unique, statuses: [...new Set(unique.flatMap(statusesOf))] };
}

/** `$filter`, parsed; a 400 naming `query.$filter` and what is supported for anything else. */
export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  if (tokens.length === 0) fail('it is empty');
  return new FilterParser(tokens).parse();
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
