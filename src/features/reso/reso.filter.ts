// `$filter`, parsed strictly against the field types of reso.fields.ts (docs/reso.md): a small
// hand-written grammar, because everything outside it must be a 400 that says what is supported, and
// because what a field may be compared with follows from its type in $metadata.
import {
  FILTERABLE_FIELDS,
  LOOKUP_VALUES,
  PROPERTY_FIELD_TYPES,
  identifierOf,
  type FieldType,
  type FilterableField,
} from './reso.fields.ts';
import { RESO_FIELDS, STANDARD_STATUSES } from './reso.mapping.ts';
import { instantOf } from './reso.odata.ts';
import { DATE, NUMBER, describe, fail, tokenize, type Token } from './reso.filter-tokens.ts';

export { FILTER_SUPPORT } from './reso.filter-tokens.ts';

export const COMPARISONS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
export type Comparison = (typeof COMPARISONS)[number];
export const TEXT_FUNCTIONS = ['contains', 'startswith', 'endswith'] as const;
export type TextFunction = (typeof TEXT_FUNCTIONS)[number];

/** A literal of `$filter`, typed; numbers keep their text (no float rounding before SQL). */
export type Literal =
  | { type: 'null' }
  | { type: 'string'; value: string }
  | { type: 'number'; value: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'instant'; value: string }
  | { type: 'date'; value: string }
  | { type: 'now' };

/** A parsed `$filter`. `onDate`: the comparison is on `date(field)` (the UTC date of a timestamp). */
export type Filter =
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; operand: Filter }
  | { kind: 'compare'; field: FilterableField; op: Comparison; value: Literal; onDate?: true }
  | { kind: 'in'; field: FilterableField; values: Literal[] }
  | { kind: 'text'; fn: TextFunction; field: FilterableField; value: string }
  /**
   * A multi-valued lookup: `any` is true when one of its values is in `values` (`has`, `/any(x: x eq …)`;
   * `values` null: it has any value at all, `/any()`), `all` when every one of its values is (true for
   * none, as OData's all).
   */
  | { kind: 'collection'; field: FilterableField; op: 'any' | 'all'; values: string[] | null };

/** Nesting and size bounds: a filter is a handful of comparisons, never a program. */
const MAX_DEPTH = 10;
const MAX_COMPARISONS = 50;
const MAX_IN = 100;

/** A lookup value as our records give it, from its StandardName or its SimpleIdentifier form. */
function lookupValue(field: FilterableField, name: string, given: string, strict: boolean): string {
  const known = field === 'StandardStatus' ? STANDARD_STATUSES : (LOOKUP_VALUES[name] ?? []);
  const found = known.find((value) => value === given || (!strict && identifierOf(value) === given));
  if (found !== undefined) return found;
  // StandardStatus is closed (DD 2.0's list); other lookups may name a DD value we never give.
  if (field === 'StandardStatus' || !strict) {
    return fail(
      `${field} is compared with one of ${known.map((v) => `'${v}'`).join(', ')}, found '${given}'`,
    );
  }
  return given;
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

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private next(): Token | undefined {
    const token = this.tokens[this.position];
    this.position += 1;
    return token;
  }

  private peekWord(word: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text === word;
  }

  private expect(kind: '(' | ')' | ',' | ':', what: string): void {
    const token = this.next();
    if (token?.kind !== kind) fail(`expected ${what}, found ${describe(token)}`);
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
    if (this.peek()?.kind === '(') {
      this.position += 1;
      const inner = this.or(depth + 1);
      this.expect(')', "')'");
      return inner;
    }
    if (this.peekWord('not')) {
      this.position += 1;
      if (this.peek()?.kind !== '(') fail('not takes a parenthesized expression: not (...)');
      return { kind: 'not', operand: this.unary(depth + 1) };
    }
    return this.comparison();
  }

  private field(token: Token | undefined): FilterableField {
    if (token?.kind !== 'word') return fail(`expected a field, found ${describe(token)}`);
    if (!(FILTERABLE_FIELDS as readonly string[]).includes(token.text)) {
      const known = (RESO_FIELDS as readonly string[]).includes(token.text);
      return fail(known ? `${token.text} cannot be filtered on` : `${token.text} is not a field of Property`);
    }
    return token.text as FilterableField;
  }

  private count(): void {
    this.comparisons += 1;
    if (this.comparisons > MAX_COMPARISONS) fail(`more than ${MAX_COMPARISONS} comparisons`);
  }

  private comparison(): Filter {
    const first = this.next();
    if (first?.kind === 'word' && first.text.includes('/')) return this.lambda(first);
    if (first?.kind === 'word' && this.peek()?.kind === '(') return this.call(first);
    const field = this.field(first);
    this.count();
    const type = PROPERTY_FIELD_TYPES[field];
    const op = this.next();
    const name = op?.kind === 'word' ? op.text : '';
    if (type.kind === 'multi') {
      if (name !== 'has')
        fail(`${field} is a collection: it takes ${this.operatorsOf(type)}, not ${describe(op)}`);
      return { kind: 'collection', field, op: 'any', values: [this.lookupLiteral(field, type)] };
    }
    if (name === 'in') {
      if (type.kind === 'boolean') fail(`${field} takes eq or ne, not in`);
      this.expect('(', "'(' after in");
      const values = [this.literal(field, type, true)];
      while (this.peek()?.kind === ',') {
        this.position += 1;
        values.push(this.literal(field, type, true));
        if (values.length > MAX_IN) fail(`an in list holds at most ${MAX_IN} values`);
      }
      this.expect(')', "')' or ',' in the in list");
      return { kind: 'in', field, values };
    }
    if (name === 'has') {
      if (type.kind !== 'lookup') fail(`has compares a lookup field, and ${field} is not one`);
      return { kind: 'compare', field, op: 'eq', value: this.literal(field, type, false) };
    }
    if (!(COMPARISONS as readonly string[]).includes(name)) {
      fail(`${field} takes ${this.operatorsOf(type)}, not ${describe(op)}`);
    }
    const comparison = name as Comparison;
    const value = this.literal(field, type, comparison === 'eq' || comparison === 'ne');
    if (
      !['eq', 'ne'].includes(comparison) &&
      !['integer', 'decimal', 'date', 'timestamp'].includes(type.kind)
    ) {
      fail(`${field} takes ${this.operatorsOf(type)}, not ${comparison}`);
    }
    return { kind: 'compare', field, op: comparison, value };
  }

  private operatorsOf(type: FieldType): string {
    if (type.kind === 'boolean') return 'eq or ne';
    if (type.kind === 'multi') return "has, /any(x: x eq 'Value') or /all(x: x eq 'Value')";
    if (type.kind === 'string' || type.kind === 'lookup')
      return `eq, ne or in${type.kind === 'lookup' ? ' or has' : ''}`;
    return 'eq, ne, gt, ge, lt, le or in';
  }

  /**
   * `Field/any(x: x eq 'A' or x eq 'B')`, `Field/all(…)` and `Field/any()` on a multi-valued lookup: the
   * lambda's body is its variable compared with eq to values, joined by or (what a set of values can say).
   */
  private lambda(token: Extract<Token, { kind: 'word' }>): Filter {
    const [name = '', operator = '', ...rest] = token.text.split('/');
    const field = this.field({ ...token, text: name });
    const type = PROPERTY_FIELD_TYPES[field];
    if (type.kind !== 'multi') fail(`${name} is not a collection: /${operator} takes a multi-valued lookup`);
    if ((operator !== 'any' && operator !== 'all') || rest.length > 0) {
      fail(`${token.text} is not understood: a collection takes /any(...) or /all(...)`);
    }
    this.expect('(', `'(' after ${token.text}`);
    this.count();
    if (this.peek()?.kind === ')' && operator === 'any') {
      this.position += 1;
      return { kind: 'collection', field, op: 'any', values: null };
    }
    const variable = this.next();
    if (variable?.kind !== 'word' || variable.text.includes('.') || variable.text.includes('/')) {
      fail(`expected the lambda variable of ${token.text}(x: x eq …), found ${describe(variable)}`);
    }
    const variableName = (variable as { text: string }).text;
    this.expect(':', `':' after the lambda variable ${variableName}`);
    const values: string[] = [];
    do {
      if (values.length > 0) this.position += 1;
      const subject = this.next();
      const op = this.next();
      if (
        subject?.kind !== 'word' ||
        subject.text !== variableName ||
        op?.kind !== 'word' ||
        op.text !== 'eq'
      ) {
        fail(
          `the body of ${token.text}(...) compares ${variableName} with eq (${variableName} eq 'Value' or ${variableName} eq …)`,
        );
      }
      values.push(this.lookupLiteral(field, type));
      if (values.length > MAX_IN) fail(`a lambda holds at most ${MAX_IN} values`);
    } while (this.peekWord('or'));
    this.expect(')', `')' closing ${token.text}(...)`);
    return { kind: 'collection', field, op: operator as 'any' | 'all', values };
  }

  /** A value of a lookup: quoted, or RESO's enum literal Namespace.LookupName'Member'. */
  private lookupLiteral(field: FilterableField, type: FieldType): string {
    const literal = this.literal(field, { ...type, kind: 'lookup' }, false);
    return (literal as { value: string }).value;
  }

  /** `contains(Field,'x')` and its kin, or `date(Field) op 2026-01-01`. */
  private call(name: Extract<Token, { kind: 'word' }>): Filter {
    this.position += 1;
    if (name.text === 'date') {
      const field = this.field(this.next());
      this.expect(')', "')' after date(field");
      if (PROPERTY_FIELD_TYPES[field].kind !== 'timestamp')
        fail(`date() takes a date-time field, not ${field}`);
      this.count();
      const op = this.next();
      const comparison = op?.kind === 'word' ? op.text : '';
      if (!(COMPARISONS as readonly string[]).includes(comparison)) {
        fail(`date(${field}) takes eq, ne, gt, ge, lt or le, not ${describe(op)}`);
      }
      const value = this.next();
      if (
        value?.kind !== 'other' ||
        !DATE.test(value.text) ||
        instantOf(`${value.text}T00:00:00Z`) === null
      ) {
        fail(`date(${field}) is compared with a date such as 2026-01-01, found ${describe(value)}`);
      }
      const date = (value as { text: string }).text;
      return {
        kind: 'compare',
        field,
        op: comparison as Comparison,
        value: { type: 'date', value: date },
        onDate: true,
      };
    }
    if (!(TEXT_FUNCTIONS as readonly string[]).includes(name.text)) {
      return fail(
        `the function ${name.text}(...) is not supported (contains, startswith, endswith, date, now are)`,
      );
    }
    const field = this.field(this.next());
    if (PROPERTY_FIELD_TYPES[field].kind !== 'string')
      fail(`${name.text}() takes a text field, not ${field}`);
    this.expect(',', `',' in ${name.text}(field, 'text')`);
    const value = this.next();
    if (value?.kind !== 'string') fail(`${name.text}() takes a quoted text, found ${describe(value)}`);
    this.expect(')', `')' after ${name.text}(field, 'text'`);
    this.count();
    return { kind: 'text', fn: name.text as TextFunction, field, value: (value as { value: string }).value };
  }

  /** The literal a field of this type is compared with; `nullable`: null is allowed (eq, ne, in). */
  private literal(field: FilterableField, type: FieldType, nullable: boolean): Literal {
    const token = this.next();
    if (token?.kind === 'word' && token.text === 'null' && nullable) return { type: 'null' };
    const wrong = (what: string): never =>
      fail(`${field} is compared with ${what}, found ${describe(token)}`);
    switch (type.kind) {
      case 'string':
        return token?.kind === 'string'
          ? { type: 'string', value: token.value }
          : wrong("a quoted text ('…')");
      case 'lookup': {
        if (token?.kind === 'string') {
          return { type: 'string', value: lookupValue(field, type.lookupName ?? field, token.value, true) };
        }
        // An enum literal, Namespace.LookupName'Member': RESO Web API Core 2.0.0's form of the value.
        const member = this.peek();
        if (
          token?.kind === 'word' &&
          token.text.endsWith(`.${type.lookupName}`) &&
          member?.kind === 'string' &&
          member.at === token.at + token.text.length
        ) {
          this.position += 1;
          return { type: 'string', value: lookupValue(field, type.lookupName ?? field, member.value, false) };
        }
        return wrong(`a quoted value ('Active') or an enum literal (Namespace.${type.lookupName}'Member')`);
      }
      case 'multi':
        return wrong('has, any or all');
      case 'date':
        return token?.kind === 'other' &&
          DATE.test(token.text) &&
          instantOf(`${token.text}T00:00:00Z`) !== null
          ? { type: 'date', value: token.text }
          : wrong('a date such as 2026-01-01');
      case 'boolean':
        return token?.kind === 'word' && (token.text === 'true' || token.text === 'false')
          ? { type: 'boolean', value: token.text === 'true' }
          : wrong('true or false');
      case 'integer':
      case 'decimal':
        return token?.kind === 'other' && NUMBER.test(token.text)
          ? { type: 'number', value: token.text }
          : wrong(type.kind === 'integer' ? 'a number such as 3' : 'a number such as 250000.00');
      case 'timestamp': {
        if (token?.kind === 'word' && token.text === 'now' && this.peek()?.kind === '(') {
          this.position += 1;
          this.expect(')', "')' after now(");
          return { type: 'now' };
        }
        const instant = token?.kind === 'other' ? instantOf(token.text) : null;
        if (instant !== null) return { type: 'instant', value: instant };
        return wrong(
          'a date-time with its zone, such as 2026-01-01T00:00:00Z (a + offset is sent as %2B), or now()',
        );
      }
    }
  }
}

/** `$filter`, parsed; a 400 naming `query.$filter` and what is supported for anything else. */
export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  if (tokens.length === 0) fail('it is empty');
  return new FilterParser(tokens).parse();
}
